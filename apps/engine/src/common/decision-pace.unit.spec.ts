import { timeSlicedCheckpoint } from './decision-pace';

describe('timeSlicedCheckpoint', () => {
  it('lets work go on inside a slice and asks for one macrotask turn once the slice has run out', async () => {
    let clock = 0;
    const checkpoint = timeSlicedCheckpoint(4, () => clock);
    clock = 3;
    expect(checkpoint()).toBeUndefined();
    clock = 4;
    const order: string[] = [];
    // Work already waiting for the loop (a request, a timer) runs before the decision goes on.
    setImmediate(() => order.push('queued work'));
    const turn = checkpoint();
    expect(turn).toBeInstanceOf(Promise);
    await turn!.then(() => order.push('decision goes on'));
    expect(order).toEqual(['queued work', 'decision goes on']);
    // A new slice starts after the turn.
    clock = 7;
    expect(checkpoint()).toBeUndefined();
  });
});
