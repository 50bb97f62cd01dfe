import { messagesChannel, runChannels, type RecordedTurn } from './messages-channel';

const turn = (
  runId: string,
  node: string,
  turnIndex: number,
  over: Partial<RecordedTurn> = {},
): RecordedTurn => ({
  messageId: `${runId}:${node}:0:${turnIndex}:user`,
  from: 'user',
  role: 'user',
  content: `t${turnIndex}`,
  ts: 1000 + turnIndex,
  turnIndex,
  ...over,
});

const conversationOf = (runId: string, node: string, turns: RecordedTurn[]) => ({
  conversationId: `${runId}:${node}:0`,
  nodeId: node,
  turns,
});

describe('the messages channel (RFC 0005 §F), folded from the recorded conversation turns', () => {
  it('lists every turn in order with run-relative ids, and keeps a caller-chosen id as sent', () => {
    const channel = messagesChannel('run-a', [
      conversationOf('run-a', 'convo', [
        turn('run-a', 'convo', 1, {
          messageId: 'caller-id-1',
          role: 'agent',
          from: 'host:a',
          speakerId: 'host:a',
        }),
        turn('run-a', 'convo', 0, { role: 'system', from: 'system', content: { reason: 'opened' } }),
      ]),
    ]);
    expect(channel).toEqual([
      {
        messageId: 'convo:0:0:user',
        nodeId: 'convo',
        from: 'system',
        role: 'system',
        content: { reason: 'opened' },
        ts: 1000,
        turnIndex: 0,
      },
      {
        messageId: 'caller-id-1',
        nodeId: 'convo',
        from: 'host:a',
        role: 'agent',
        content: 't1',
        ts: 1001,
        turnIndex: 1,
        speakerId: 'host:a',
      },
    ]);
  });

  it('a replay fork that records the same turns under its own run id has a byte-equal channel', () => {
    const source = [conversationOf('run-a', 'convo', [turn('run-a', 'convo', 0), turn('run-a', 'convo', 1)])];
    const fork = [conversationOf('run-b', 'convo', [turn('run-b', 'convo', 0), turn('run-b', 'convo', 1)])];
    expect(JSON.stringify(runChannels('run-b', fork))).toBe(JSON.stringify(runChannels('run-a', source)));
    // The ids are relative, not dropped: another conversation's turns stay apart.
    expect(JSON.stringify(runChannels('run-b', fork))).not.toBe(
      JSON.stringify(
        runChannels('run-a', [
          conversationOf('run-a', 'other', [turn('run-a', 'other', 0), turn('run-a', 'other', 1)]),
        ]),
      ),
    );
  });

  it('orders conversations by their opening turn, whatever order the rows came in', () => {
    const first = conversationOf('r', 'later-id', [turn('r', 'later-id', 0, { ts: 5 })]);
    const second = conversationOf('r', 'earlier-id', [turn('r', 'earlier-id', 0, { ts: 9 })]);
    const ids = (cs: Parameters<typeof messagesChannel>[1]) => messagesChannel('r', cs).map((m) => m.nodeId);
    expect(ids([second, first])).toEqual(['later-id', 'earlier-id']);
    expect(ids([first, second])).toEqual(['later-id', 'earlier-id']);
  });

  it('folds a messageId once (the message reducer), and is absent for a run with no conversation', () => {
    const dup = turn('r', 'convo', 1, { messageId: 'same' });
    const channel = messagesChannel('r', [
      conversationOf('r', 'convo', [turn('r', 'convo', 0, { messageId: 'same' }), dup]),
    ]);
    expect(channel.map((m) => m.turnIndex)).toEqual([0]);
    expect(runChannels('r', [])).toBeUndefined();
  });
});
