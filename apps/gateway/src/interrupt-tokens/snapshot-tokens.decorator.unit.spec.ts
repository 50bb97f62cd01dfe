import { pendingInterruptIdOf, tokenAuthorityOf, withInterruptTokens } from './snapshot-tokens.decorator';

const tokens = { resolveToken: 'RES.mac', inspectToken: 'INS.mac', expiresAt: '2026-01-01T00:30:00.000Z' };
const before = Date.parse('2026-01-01T00:10:00.000Z');
const snapshot = {
  runId: 'r',
  status: 'waiting-external',
  interrupt: { interruptId: 'r:n:0', nodeId: 'n', kind: 'external-event' },
};
const inspectFields = {
  inspectToken: 'INS.mac',
  inspectUrl: 'http://host:8080/v1/interrupts/INS.mac',
  tokenExpiresAt: '2026-01-01T00:30:00.000Z',
};

describe('tokenAuthorityOf', () => {
  const reader = (tenant: string, ...scopes: string[]) => ({ tenant, scopes: new Set(scopes) });

  it('resolve only for approvals:respond in the run tenant', () => {
    expect(tokenAuthorityOf(reader('t1', 'runs:read', 'approvals:respond'), 't1')).toBe('resolve');
    expect(tokenAuthorityOf(reader('t1', 'approvals:respond'), 't1')).toBe('resolve');
  });

  it('inspect for a reader without the scope, or of another tenant', () => {
    expect(tokenAuthorityOf(reader('t1', 'runs:read', 'manifest:read'), 't1')).toBe('inspect');
    expect(tokenAuthorityOf(reader('t1', 'runs:read', 'runs:create', 'runs:cancel'), 't1')).toBe('inspect');
    expect(tokenAuthorityOf(reader('t2', 'runs:read', 'approvals:respond'), 't1')).toBe('inspect');
  });
});

describe('withInterruptTokens', () => {
  it('resolve authority: interruptToken, callbackUrl, inspectToken, inspectUrl and tokenExpiresAt', () => {
    expect(
      withInterruptTokens(snapshot, tokens, {
        authority: 'resolve',
        publicUrl: 'http://host:8080/',
        now: before,
      }),
    ).toEqual({
      ...snapshot,
      interrupt: {
        ...snapshot.interrupt,
        interruptToken: 'RES.mac',
        callbackUrl: 'http://host:8080/v1/interrupts/RES.mac',
        ...inspectFields,
      },
    });
  });

  it('inspect authority: the inspect-only token and link, nothing that resolves', () => {
    const shown = withInterruptTokens(snapshot, tokens, {
      authority: 'inspect',
      publicUrl: 'http://host:8080',
      now: before,
    });
    expect(shown).toEqual({ ...snapshot, interrupt: { ...snapshot.interrupt, ...inspectFields } });
    expect(JSON.stringify(shown)).not.toContain('RES.mac');
  });

  it('expired tokens (expiresAt <= now) are shown to nobody: tokenExpired instead', () => {
    for (const now of [Date.parse(tokens.expiresAt), Date.parse(tokens.expiresAt) + 1]) {
      for (const authority of ['resolve', 'inspect'] as const) {
        const shown = withInterruptTokens(snapshot, tokens, { authority, publicUrl: 'http://h', now });
        expect(shown).toEqual({
          ...snapshot,
          interrupt: { ...snapshot.interrupt, tokenExpired: true, tokenExpiresAt: tokens.expiresAt },
        });
        expect(JSON.stringify(shown)).not.toMatch(/RES\.mac|INS\.mac/);
      }
    }
  });

  it('leaves a snapshot without tokens or without an interrupt unchanged', () => {
    const p = { authority: 'resolve', publicUrl: 'http://h', now: before } as const;
    expect(withInterruptTokens(snapshot, undefined, p)).toBe(snapshot);
    const done = { runId: 'r', status: 'completed' };
    expect(withInterruptTokens(done, tokens, p)).toBe(done);
  });

  it('pendingInterruptIdOf reads the snapshot interrupt id', () => {
    expect(pendingInterruptIdOf(snapshot)).toBe('r:n:0');
    expect(pendingInterruptIdOf({})).toBeUndefined();
  });
});
