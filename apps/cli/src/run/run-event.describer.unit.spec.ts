import { PassThrough } from 'node:stream';
import { Output } from '../util/output';
import { describeEvent } from './run-event.describer';

const out = new Output(false, new PassThrough(), new PassThrough(), { NO_COLOR: '1' }, true);

describe('describeEvent', () => {
  it('shows a conversation step\'s output when it has one, and no empty "— output:"', () => {
    expect(
      describeEvent(
        {
          type: 'node.completed',
          nodeId: 'chat',
          payload: { outputs: { reply: 'Done: three days in Lisbon.' } },
        },
        out,
      ),
    ).toBe('✓ chat completed — output: Done: three days in Lisbon.');
    expect(
      describeEvent({ type: 'node.completed', nodeId: 'chat', payload: { outputs: { reply: '' } } }, out),
    ).toBe('✓ chat completed');
    expect(describeEvent({ type: 'node.completed', nodeId: 'book', payload: { outputs: {} } }, out)).toBe(
      '✓ book completed',
    );
  });

  it("says when a conversation closed because the agent's script ran out", () => {
    expect(
      describeEvent(
        { type: 'conversation.closed', nodeId: 'chat', payload: { outcome: { reason: 'script-ended' } } },
        out,
      ),
    ).toBe("conversation closed: the agent's script has no more lines");
    expect(
      describeEvent(
        { type: 'conversation.closed', nodeId: 'chat', payload: { outcome: { reason: 'user' } } },
        out,
      ),
    ).toBeUndefined();
  });
});
