import { DecidedThrough } from './decided-through';

describe('DecidedThrough, its per (topic, key) exclusion and its bus check', () => {
  it('a chained decision only tries the lock; a seam handling from the bus waits for it', async () => {
    const registry = new DecidedThrough(() => 0);
    const chain = {};
    const release = registry.tryHold('t', 'k', chain);
    expect(release).toBeDefined();
    // Another owner cannot take it without waiting; the same owner may (its own nested command).
    expect(registry.tryHold('t', 'k', {})).toBeUndefined();
    expect(registry.tryHold('t', 'k', chain)).toBeDefined();
    expect(registry.tryHold('t', 'other', {})).toBeDefined();
    let entered = false;
    const root = registry.enter('t', 'k', {}).then((free) => {
      entered = true;
      return free;
    });
    await new Promise((r) => setImmediate(r));
    expect(entered).toBe(false);
    release!();
    const free = await root;
    expect(entered).toBe(true);
    // Now the root holds it: a chained decision of another transaction is turned away.
    expect(registry.tryHold('t', 'k', chain)).toBeUndefined();
    free();
    expect(registry.tryHold('t', 'k', chain)).toBeDefined();
  });

  it('a root owns its own topic and key: its nested chained command of them is not turned away', async () => {
    const registry = new DecidedThrough(() => 0);
    const owner = {};
    const free = await registry.enter('interrupt', 'run-1', owner);
    expect(registry.tryHold('interrupt', 'run-1', owner)).toBeDefined();
    free();
  });

  it('the bus check leaves out the root message by its partition and offset, and only on its topic', () => {
    const seen: unknown[] = [];
    const registry = new DecidedThrough((topic, key, except) => {
      seen.push({ topic, key, except });
      return except ? 0 : 1;
    });
    const root = { topic: 'interrupt', key: 'run-1', partition: 3, offset: '17' };
    expect(registry.unsettled('interrupt', 'run-1', root)).toBe(false);
    expect(registry.unsettled('engine', 'run-1', root)).toBe(true);
    expect(registry.unsettled('interrupt', 'run-1', { topic: 'interrupt', key: 'run-1' })).toBe(true);
    expect(seen[0]).toEqual({ topic: 'interrupt', key: 'run-1', except: { partition: 3, offset: 17 } });
    expect(seen[1]).toEqual({ topic: 'engine', key: 'run-1', except: undefined });
  });
});
