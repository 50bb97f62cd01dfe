import { PassThrough } from 'node:stream';
import { resolve } from 'node:path';
import { HELP, runCli } from './cli';

// Command lines `wop` refuses: each exits 2 before a single request leaves the process.

async function wop(argv: string[]): Promise<{ code: number; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  stdout.resume();
  const code = await runCli(argv, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { WOP_URL: 'http://127.0.0.1:9', WOP_API_KEY: 'k' },
    cwd: resolve(__dirname, '../../..'),
  });
  return { code, stderr: err };
}

describe('wop command lines checked before any request', () => {
  let fetched: jest.SpyInstance;
  beforeEach(() => {
    fetched = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('no request expected'));
  });
  afterEach(() => fetched.mockRestore());

  it.each([
    [
      ['run', 'examples/approval.yaml', '--action', 'acept'],
      /--action "acept" is not an approval action; use one of accept, reject, refine, edit, edit-accept, ask/,
    ],
    [['run', 'examples/approval.yaml', '--action', 'edit'], /an edit needs the edited artifact/],
    [['run', 'examples/approval.yaml', '--feedback', 'why'], /--feedback goes with --action/],
    [
      ['run', 'examples/approval.yaml', '--action', 'accept', '--value', '{}'],
      /--action and --value do not go together/,
    ],
    [['run', 'examples/approval.yaml', '--value', '{nope'], /--value must be JSON/],
    [['run', 'examples/approval.yaml', '--answer', 'city'], /--answer takes key=value/],
    [['run', 'examples/approval.yaml', '--status', 'running'], /--status does not apply to wop run/],
    [['attach', 'r1', '--action', 'acept'], /is not an approval action/],
    [['resolve', 'r1', 'review', '--action', 'acept'], /is not an approval action/],
    [['resolve', 'r1', 'review', '--value', '{}', '--feedback', 'x'], /--feedback goes with --action/],
    [['runs', 'ls', '--follow'], /--follow does not apply to wop runs/],
  ])('wop %j exits 2 without a request', async (argv, message) => {
    const r = await wop(argv);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) });
    expect(fetched).not.toHaveBeenCalled();
  });

  it('documents exit code 4 for input that ends where an answer is wanted, apart from 130 for Ctrl+C', () => {
    expect(HELP).toMatch(/\n {2}4 +input ended while the run waits for an answer/);
    expect(HELP).toMatch(/\n {2}130 +interrupted \(Ctrl\+C\)/);
  });
});
