import { pendingInterruptIdOf, withInterruptTokens } from './snapshot-tokens.decorator';

const tokens = { resolveToken: 'RES.mac', inspectToken: 'INS.mac', expiresAt: '2026-01-01T00:30:00.000Z' };
const snapshot = {
  runId: 'r',
  status: 'waiting-external',
  interrupt: { interruptId: 'r:n:0', nodeId: 'n', kind: 'external-event' },
};

describe('withInterruptTokens', () => {
  it('adds interruptToken, callbackUrl, inspectToken and tokenExpiresAt to the pending interrupt', () => {
    expect(withInterruptTokens(snapshot, tokens, 'http://host:8080/')).toEqual({
      ...snapshot,
      interrupt: {
        ...snapshot.interrupt,
        interruptToken: 'RES.mac',
        callbackUrl: 'http://host:8080/v1/interrupts/RES.mac',
        inspectToken: 'INS.mac',
        tokenExpiresAt: '2026-01-01T00:30:00.000Z',
      },
    });
  });

  it('leaves a snapshot without tokens or without an interrupt unchanged', () => {
    expect(withInterruptTokens(snapshot, undefined, 'http://h')).toBe(snapshot);
    const done = { runId: 'r', status: 'completed' };
    expect(withInterruptTokens(done, tokens, 'http://h')).toBe(done);
  });

  it('pendingInterruptIdOf reads the snapshot interrupt id', () => {
    expect(pendingInterruptIdOf(snapshot)).toBe('r:n:0');
    expect(pendingInterruptIdOf({})).toBeUndefined();
  });
});
