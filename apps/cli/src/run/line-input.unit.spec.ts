import { PassThrough } from 'node:stream';
import { LineInput } from './line-input';

/** A terminal: keys in (readline in raw mode), what is drawn out. */
function terminal() {
  const keys = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const screen = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  let drawn = '';
  screen.on('data', (c: Buffer) => (drawn += c.toString()));
  const settle = () => new Promise<void>((r) => setImmediate(r));
  // What the screen shows: readline's cursor and clear-line sequences left out.
  // eslint-disable-next-line no-control-regex
  const visible = () => drawn.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  return { keys, screen, drawn: visible, settle };
}

describe('LineInput at a terminal', () => {
  it('keeps keys typed ahead out of what is printed meanwhile, and redraws them after the next prompt', async () => {
    const t = terminal();
    const input = new LineInput(t.keys, t.screen, () => undefined);
    const signal = new AbortController().signal;
    const first = input.ask('> ', signal);
    t.keys.write('Lisbon\r');
    expect(await first).toBe('Lisbon');
    await t.settle();

    // The agent's reply streams; the person types ahead meanwhile.
    t.screen.write('agent: Noted');
    t.keys.write('thr');
    await t.settle();
    t.screen.write('. How many days?\n');
    await t.settle();
    expect(t.drawn()).toContain('agent: Noted. How many days?\n');
    expect(t.drawn()).not.toContain('thr');

    const second = input.ask('> ', signal);
    await t.settle();
    expect(
      t
        .drawn()
        .split(/\r?\n|\r/)
        .pop(),
    ).toBe('> thr');
    t.keys.write('ee\r');
    expect(await second).toBe('three');
    input.close();
  });

  it('shows a whole line typed ahead after its prompt when it is taken, so the next output starts below', async () => {
    const t = terminal();
    const input = new LineInput(t.keys, t.screen, () => undefined);
    const signal = new AbortController().signal;
    const first = input.ask('> ', signal);
    t.keys.write('one\r');
    expect(await first).toBe('one');
    t.keys.write('two\r');
    await t.settle();
    t.screen.write('agent: reply\n');
    await t.settle();
    expect(await input.ask('> ', signal)).toBe('two');
    expect(t.drawn().endsWith('agent: reply\n> two\n')).toBe(true);
    input.close();
  });
});
