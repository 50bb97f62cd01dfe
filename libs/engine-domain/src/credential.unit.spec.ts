import { setCredentialConnectBase } from './builtin-nodes';
import { payloadOf, resume, start, types, workflow } from './test-kit.spec';

// RFC 0199 §C: `core.credential` suspends on a `credential` interrupt (waiting-input), with a closed
// CredentialData whose connectUrl is under the host's https origin, and the fixed resumeSchema.
const wf = workflow(
  [
    { id: 'connect', typeId: 'core.credential', config: { provider: 'acme', scopes: ['read', 'write'] } },
    { id: 'after' },
  ],
  [['connect', 'after']],
);

describe('core.credential (the credential interrupt)', () => {
  afterEach(() => setCredentialConnectBase(undefined));

  it('suspends with a credential interrupt whose connectUrl is host-owned, then completes on authorized', async () => {
    setCredentialConnectBase('https://wop.example/');
    const started = await start(wf);
    expect(types(started.events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'node.suspended',
    ]);
    expect(payloadOf(started.events, 'interrupt.requested')).toMatchObject({
      kind: 'credential',
      data: {
        provider: 'acme',
        scopes: ['read', 'write'],
        reason: 'missing',
        connectUrl: 'https://wop.example/oauth/connect/r1/connect',
      },
      resumeSchema: { additionalProperties: false, required: ['outcome'] },
    });
    expect(started.state.status).toBe('suspended');
    expect(payloadOf(started.events, 'node.suspended')).toMatchObject({ kind: 'credential' });
    const { events, state } = await resume(started.state, { outcome: 'authorized' });
    expect(payloadOf(events, 'node.completed').outputs).toEqual({
      provider: 'acme',
      scopes: ['read', 'write'],
      outcome: 'authorized',
    });
    expect(state.status).toBe('completed');
  });

  it('fails the node connector_auth_declined on declined', async () => {
    setCredentialConnectBase('https://wop.example');
    const started = await start(wf);
    const { events, state } = await resume(started.state, { outcome: 'declined' });
    expect(payloadOf(events, 'node.failed').error).toMatchObject({
      code: 'connector_auth_declined',
      retryable: false,
    });
    expect(state.status).toBe('failed');
  });

  it('fails capability_not_provided without an https public URL, raising nothing', async () => {
    setCredentialConnectBase('http://127.0.0.1:8080');
    const started = await start(wf);
    expect(types(started.events)).not.toContain('interrupt.requested');
    expect(payloadOf(started.events, 'node.failed').error).toMatchObject({ code: 'capability_not_provided' });
  });
});

describe('no interrupt asks for credential material at run time (RFC 0199 §C.6)', () => {
  it('fails a clarification whose question asks for a password, with nothing raised', async () => {
    const started = await start(
      workflow([
        {
          id: 'ask',
          typeId: 'core.clarificationGate',
          config: {
            questions: [{ id: 'q', question: 'Sign in', schema: { type: 'string', format: 'password' } }],
          },
        },
      ]),
    );
    expect(types(started.events)).not.toContain('interrupt.requested');
    expect(payloadOf(started.events, 'node.failed').error).toMatchObject({ code: 'validation_error' });
  });
});
