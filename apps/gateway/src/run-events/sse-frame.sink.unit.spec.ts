import { BatchingFrameSink, DirectFrameSink, frameSinkFor, type SseFrameSink } from './sse-frame.sink';
import type { SseFrame } from './sse.writer';

function recorder(): { frames: SseFrame[]; frame(f: SseFrame): Promise<void> } {
  const frames: SseFrame[] = [];
  return { frames, frame: async (f) => void frames.push(f) };
}

const doc = (sequence: number, type = 'node.completed') => ({ sequence, type });
const frameOf = (d: { sequence: number; type: string }): SseFrame => ({
  id: d.sequence,
  event: d.type,
  data: d,
});

describe('the unbuffered sink', () => {
  it('writes each frame as it comes', async () => {
    const out = recorder();
    const sink: SseFrameSink = new DirectFrameSink(out);
    await sink.add(frameOf(doc(0, 'run.started')), doc(0, 'run.started'), false);
    await sink.flush();
    expect(out.frames).toEqual([{ id: 0, event: 'run.started', data: doc(0, 'run.started') }]);
    expect(sink.msUntilDue()).toBeUndefined();
  });

  it('is what bufferMs absent or 0 gets', () => {
    expect(frameSinkFor(recorder(), undefined)).toBeInstanceOf(DirectFrameSink);
    expect(frameSinkFor(recorder(), 0)).toBeInstanceOf(DirectFrameSink);
    expect(frameSinkFor(recorder(), 1)).toBeInstanceOf(BatchingFrameSink);
  });
});

describe('the bufferMs sink', () => {
  let clock: number;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
  });

  it('holds frames until the window of the first one is over, then sends one batch with the highest sequence as id', async () => {
    const out = recorder();
    const sink = new BatchingFrameSink(out, 200, now);
    await sink.add(frameOf(doc(3)), doc(3), false);
    clock += 150;
    await sink.add(frameOf(doc(5)), doc(5), false);
    await sink.flushIfDue();
    expect(out.frames).toEqual([]);
    expect(sink.msUntilDue()).toBe(50);
    clock += 50;
    await sink.flushIfDue();
    expect(out.frames).toEqual([{ id: 5, event: 'batch', data: [doc(3), doc(5)] }]);
    expect(sink.msUntilDue()).toBeUndefined();
  });

  it('a forced trigger (terminal event, suspension) sends the batch at once', async () => {
    const out = recorder();
    const sink = new BatchingFrameSink(out, 4_000, now);
    await sink.add(frameOf(doc(0, 'run.started')), doc(0, 'run.started'), false);
    await sink.add(frameOf(doc(2, 'run.completed')), doc(2, 'run.completed'), true);
    expect(out.frames).toEqual([
      { id: 2, event: 'batch', data: [doc(0, 'run.started'), doc(2, 'run.completed')] },
    ]);
  });

  it('a new window opens with the next frame after a flush; flush sends what is left, and nothing when empty', async () => {
    const out = recorder();
    const sink = new BatchingFrameSink(out, 100, now);
    await sink.add(frameOf(doc(1)), doc(1), true);
    clock += 1_000;
    await sink.add(frameOf(doc(2)), doc(2), false);
    expect(sink.msUntilDue()).toBe(100);
    await sink.flush();
    await sink.flush();
    expect(out.frames.map((f) => [f.id, f.data])).toEqual([
      [1, [doc(1)]],
      [2, [doc(2)]],
    ]);
  });

  it('an add past the window sends the batch with it', async () => {
    const out = recorder();
    const sink = new BatchingFrameSink(out, 100, now);
    await sink.add(frameOf(doc(1)), doc(1), false);
    clock += 100;
    await sink.add(frameOf(doc(2)), doc(2), false);
    expect(out.frames).toEqual([{ id: 2, event: 'batch', data: [doc(1), doc(2)] }]);
  });
});
