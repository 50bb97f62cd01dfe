import { GroupedLookup } from './grouped-lookup';

describe('GroupedLookup', () => {
  it('runs calls made together as one, and hands each caller that call’s result', async () => {
    const runs: number[][] = [];
    const lookup = new GroupedLookup(async (items: number[]) => {
      runs.push(items);
      return items.reduce((a, b) => a + b, 0);
    });
    const results = await Promise.all([lookup.call([1]), lookup.call([2, 3]), lookup.call([4])]);
    expect(runs).toEqual([[1, 2, 3, 4]]);
    expect(results).toEqual([10, 10, 10]);
  });

  it('groups calls made while one runs into the next call', async () => {
    const runs: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const lookup = new GroupedLookup(async (items: number[]) => {
      runs.push(items);
      if (runs.length === 1) await first;
      return items.length;
    });
    const a = lookup.call([1]);
    await new Promise((r) => setImmediate(r));
    const b = lookup.call([2]);
    const c = lookup.call([3]);
    release();
    expect(await Promise.all([a, b, c])).toEqual([1, 2, 2]);
    expect(runs).toEqual([[1], [2, 3]]);
  });

  it('rejects every caller of a failed call, and the next call runs again', async () => {
    let fail = true;
    const lookup = new GroupedLookup(async (items: number[]) => {
      if (fail) throw new Error('down');
      return items.length;
    });
    await expect(Promise.all([lookup.call([1]), lookup.call([2])])).rejects.toThrow('down');
    fail = false;
    await expect(lookup.call([3])).resolves.toBe(1);
  });
});
