import { PollLoop } from './poll-loop';

describe('PollLoop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('ticks about every interval, one at a time, reports a failed tick and keeps going; stop waits for the tick in progress', async () => {
    // The jitter is pinned: the first wait at its shortest (75 %), the next ones at the interval, so
    // the counts below do not depend on where random waits happen to fall.
    jest.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValue(0.5);
    const errors: unknown[] = [];
    let ticks = 0;
    let release: () => void = () => undefined;
    const loop = new PollLoop(
      async () => {
        ticks++;
        if (ticks === 2) throw new Error('database restarting');
        if (ticks === 3) await new Promise<void>((r) => (release = r));
      },
      100,
      (e) => errors.push(e),
    );
    expect(loop.active).toBe(false);
    loop.start();
    expect(loop.active).toBe(true);
    await jest.advanceTimersByTimeAsync(74);
    expect(ticks).toBe(0); // not before 75 % of the interval
    await jest.advanceTimersByTimeAsync(51);
    expect(ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(125);
    expect(ticks).toBe(2);
    expect(errors).toEqual([new Error('database restarting')]);
    await jest.advanceTimersByTimeAsync(125);
    expect(ticks).toBe(3); // this tick hangs until released
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(3); // no second tick while one is in progress
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    expect(loop.stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(3);
  });
});

describe('PollLoop.kick', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('ticks now; a kick during a tick makes one more right after it; nothing before start or after stop', async () => {
    let ticks = 0;
    let release: () => void = () => undefined;
    const loop = new PollLoop(
      async () => {
        ticks++;
        if (ticks === 1) await new Promise<void>((r) => (release = r));
      },
      10_000,
      () => undefined,
    );
    loop.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(0); // not started
    loop.start();
    loop.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1); // long before the interval
    loop.kick();
    loop.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(1); // one tick at a time
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(2); // the kicks during it made one more, not two
    await jest.advanceTimersByTimeAsync(5_000);
    expect(ticks).toBe(2);
    await jest.advanceTimersByTimeAsync(8_000);
    expect(ticks).toBe(3); // then the schedule goes on
    await loop.stop();
    loop.kick();
    await jest.advanceTimersByTimeAsync(20_000);
    expect(ticks).toBe(3);
  });
});

describe('PollLoop.dueIn', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('ticks at a told due time sooner than the next poll, never later than the poll; one told during a tick bounds the next', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5); // every poll at exactly the interval
    let ticks = 0;
    let release: () => void = () => undefined;
    let hang = false;
    const loop = new PollLoop(
      async () => {
        ticks++;
        if (hang) await new Promise<void>((r) => (release = r));
      },
      1_000,
      () => undefined,
    );
    loop.dueIn(10); // before start: nothing
    loop.start();
    loop.dueIn(300);
    loop.dueIn(5_000); // later than the poll: the poll stays
    await jest.advanceTimersByTimeAsync(299);
    expect(ticks).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(1); // at the due time, not the poll's 1,000 ms
    await jest.advanceTimersByTimeAsync(999);
    expect(ticks).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(2); // then the interval again
    hang = true;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ticks).toBe(3); // in a tick now
    loop.dueIn(200); // told during the tick
    hang = false;
    release();
    await jest.advanceTimersByTimeAsync(199);
    expect(ticks).toBe(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(ticks).toBe(4);
    loop.dueIn(0); // already due: now
    await jest.advanceTimersByTimeAsync(0);
    expect(ticks).toBe(5);
    await loop.stop();
    loop.dueIn(10);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(ticks).toBe(5);
  });
});
