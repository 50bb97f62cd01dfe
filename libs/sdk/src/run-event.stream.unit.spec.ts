import { classifyFrame, isTerminalEvent, unpack } from './run-event.stream';

const doc = (type: string, sequence: number, payload: unknown = {}) => ({
  eventId: `e${sequence}`,
  runId: 'r1',
  type,
  payload,
  timestamp: '2026-01-01T00:00:00.000Z',
  sequence,
});

describe('classifyFrame', () => {
  it('types a frame by its data: run event, snapshot, message chunk, or unknown', () => {
    expect(classifyFrame({ id: 3, event: 'run.started', data: doc('run.started', 3) })).toMatchObject({
      type: 'run.started',
      id: 3,
    });
    // A mixed stream may name the frame by mode: the data still decides.
    expect(classifyFrame({ id: 4, event: 'updates', data: doc('node.completed', 4) }).type).toBe(
      'node.completed',
    );
    expect(
      classifyFrame({ id: 5, event: 'state.snapshot', data: doc('state.snapshot', 5, { status: 'running' }) })
        .type,
    ).toBe('state.snapshot');
    expect(
      classifyFrame({ id: 6, event: 'ai.message.chunk', data: { runId: 'r1', nodeId: 'n', chunk: 'Hel' } })
        .type,
    ).toBe('ai.message.chunk');
    expect(
      classifyFrame({ id: 6, event: 'messages', data: { runId: 'r1', nodeId: 'n', chunk: 'lo' } }).type,
    ).toBe('ai.message.chunk');
    // A type newer than the schemas, and data that is not an event, are `unknown`, kept as they came.
    expect(classifyFrame({ id: 7, event: 'x', data: doc('future.thing', 7) })).toEqual({
      id: 7,
      event: 'x',
      type: 'unknown',
      data: doc('future.thing', 7),
    });
    expect(classifyFrame({ event: 'message', data: 'plain text' })).toEqual({
      event: 'message',
      type: 'unknown',
      data: 'plain text',
    });
  });

  it('narrows data by type', () => {
    const frame = classifyFrame({
      id: 1,
      event: 'interrupt.requested',
      data: doc('interrupt.requested', 1, {
        kind: 'approval',
        key: 'k',
        data: {},
        interruptId: 'i',
        nodeId: 'n',
        runId: 'r1',
        requestedAt: '',
      }),
    });
    if (frame.type !== 'interrupt.requested') throw new Error(`classified as ${frame.type}`);
    const kind:
      | 'approval'
      | 'clarification'
      | 'external-event'
      | 'custom'
      | `conversation.${string}`
      | 'low-confidence' = frame.data.payload.kind;
    expect(kind).toBe('approval');
  });
});

describe('unpack', () => {
  it('yields each document of an `event: batch` frame with its own sequence; a chunk document as its chunk', () => {
    const frames = unpack({
      id: 9,
      event: 'batch',
      data: [
        doc('node.started', 7, { nodeId: 'n', typeId: 't' }),
        { ...doc('ai.message.chunk', 8), payload: { runId: 'r1', nodeId: 'n', chunk: 'hi' } },
        doc('run.completed', 9),
      ],
    });
    expect(frames.map((f) => [f.id, f.type])).toEqual([
      [7, 'node.started'],
      [8, 'ai.message.chunk'],
      [9, 'run.completed'],
    ]);
    expect(frames[1]!.data).toEqual({ runId: 'r1', nodeId: 'n', chunk: 'hi' });
    expect(frames.map((f) => isTerminalEvent(f))).toEqual([false, false, true]);
  });

  it('passes a single frame through, classified', () => {
    expect(unpack({ id: 1, event: 'run.failed', data: doc('run.failed', 1) })).toEqual([
      { id: 1, event: 'run.failed', type: 'run.failed', data: doc('run.failed', 1) },
    ]);
  });
});
