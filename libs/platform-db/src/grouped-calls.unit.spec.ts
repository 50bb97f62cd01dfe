import { GroupedCalls } from './grouped-calls';

/** A `run` whose calls the test settles by hand. */
function manual() {
  const calls: { items: number[]; settle: (error?: Error) => void }[] = [];
  const grouped = new GroupedCalls<number>(
    (items) =>
      new Promise<void>((resolve, reject) => {
        calls.push({ items, settle: (error) => (error ? reject(error) : resolve()) });
      }),
  );
  return { calls, grouped };
}
const turn = () => new Promise((r) => setImmediate(r));

describe('GroupedCalls', () => {
  it('runs a lone call at once with its own items', async () => {
    const { calls, grouped } = manual();
    const done = grouped.call([1, 2]);
    expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    calls[0]!.settle();
    await expect(done).resolves.toBeUndefined();
  });

  it('groups the calls made while one runs into the next, in order, and settles each with its call', async () => {
    const { calls, grouped } = manual();
    const settled: string[] = [];
    const first = grouped.call([1]).then(() => settled.push('first'));
    const second = grouped.call([2]).then(() => settled.push('second'));
    const third = grouped.call([3, 4]).then(() => settled.push('third'));
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0]!.settle();
    await first;
    await turn();
    expect(settled).toEqual(['first']);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.settle();
    await Promise.all([second, third]);
    expect(settled).toEqual(['first', 'second', 'third']);
  });

  it('a failed call rejects every caller it carried, and the next call still runs', async () => {
    const { calls, grouped } = manual();
    const first = grouped.call([1]);
    const a = grouped.call([2]);
    const b = grouped.call([3]);
    calls[0]!.settle();
    await first;
    await turn();
    calls[1]!.settle(new Error('db down'));
    await expect(a).rejects.toThrow('db down');
    await expect(b).rejects.toThrow('db down');
    const later = grouped.call([5]);
    expect(calls[2]!.items).toEqual([5]);
    calls[2]!.settle();
    await expect(later).resolves.toBeUndefined();
  });
});
