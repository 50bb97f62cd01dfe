import {
  credentialDataProblems,
  credentialQuestionProblems,
  credentialSchemaProblems,
  namesCredentialMaterial,
} from './credential';
import { unsupportedFeatures, type WorkflowDefinition } from './workflow';

describe('namesCredentialMaterial (RFC 0199 §C.6)', () => {
  it.each([
    'password',
    'userPassword',
    'api_key',
    'apiKey',
    'APIKey',
    'x-api-key',
    'accessToken',
    'refresh_token',
    'token',
    'clientSecret',
    'secret',
    'privateKey',
    'cardNumber',
    'cvv',
    'passphrase',
  ])('%s names credential material', (name) => {
    expect(namesCredentialMaterial(name)).toBe(true);
  });

  it.each([
    'tokenCount',
    'maxTokens',
    'secretary',
    'name',
    'approval',
    'email',
    'keyword',
    'monkey',
    'comment',
  ])('%s does not', (name) => {
    expect(namesCredentialMaterial(name)).toBe(false);
  });
});

describe('credentialSchemaProblems', () => {
  it('finds writeOnly, format password and credential-named properties at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        login: { type: 'object', properties: { pin: { type: 'string', writeOnly: true } } },
        note: { type: 'string', format: 'password' },
        items: { type: 'array', items: { type: 'object', properties: { apiKey: { type: 'string' } } } },
        ok: { type: 'string' },
      },
    };
    expect(credentialSchemaProblems(schema, '/s').map((p) => p.path)).toEqual([
      '/s/properties/login/properties/pin',
      '/s/properties/login/properties/pin/writeOnly',
      '/s/properties/note/format',
      '/s/properties/items/items/properties/apiKey',
    ]);
  });

  it('passes an ordinary schema and a non-schema', () => {
    expect(credentialSchemaProblems({ type: 'object', properties: { colour: { enum: ['red'] } } })).toEqual(
      [],
    );
    expect(credentialSchemaProblems(undefined)).toEqual([]);
    expect(credentialSchemaProblems('x')).toEqual([]);
  });

  it('flags a question whose id asks for a secret, or whose schema does', () => {
    const problems = credentialQuestionProblems(
      [
        { id: 'apiKey', question: 'Your key?' },
        {
          id: 'q2',
          question: 'Sign in',
          schema: { type: 'object', properties: { password: { type: 'string' } } },
        },
        { id: 'colour', question: 'Which colour?' },
      ],
      '/q',
    );
    expect(problems.map((p) => p.path)).toEqual(['/q/0/id', '/q/1/schema/properties/password']);
  });
});

describe('credentialDataProblems (CredentialData is closed)', () => {
  const good = {
    provider: 'slack',
    scopes: ['chat:write'],
    reason: 'missing',
    connectUrl: 'https://h.example/c/1',
  };

  it('accepts a well-formed payload, with or without a credentialRef', () => {
    expect(credentialDataProblems(good)).toEqual([]);
    expect(credentialDataProblems({ ...good, credentialRef: { ref: 'cred_1', scope: 'user' } })).toEqual([]);
  });

  it("refuses the RFC's negative example: http connectUrl and an accessToken member", () => {
    const paths = credentialDataProblems({
      ...good,
      reason: 'expired',
      connectUrl: 'http://host.example/c',
      accessToken: 'xoxb-1',
    }).map((p) => p.path);
    expect(paths).toEqual(['/data/accessToken', '/data/connectUrl']);
  });

  it('refuses a missing provider, duplicate scopes and an unknown reason', () => {
    const paths = credentialDataProblems({
      scopes: ['a', 'a'],
      reason: 'lost',
      connectUrl: good.connectUrl,
    }).map((p) => p.path);
    expect(paths).toEqual(['/data/provider', '/data/scopes', '/data/reason']);
  });
});

describe('registration refuses an interrupt asking for credential material', () => {
  const wf = (config: Record<string, unknown>, typeId = 'core.clarificationGate'): WorkflowDefinition => ({
    id: 'w',
    name: 'w',
    version: '1.0.0',
    nodes: [{ id: 'n', typeId, config }],
    edges: [],
  });

  it('names the question and the resumeSchema property', () => {
    expect(
      unsupportedFeatures(
        wf({
          questions: [{ id: 'password', question: 'Your password?' }],
          resumeSchema: { type: 'object', properties: { token: { type: 'string' } } },
        }),
      ).map((p) => p.path),
    ).toEqual(['/nodes/0/config/resumeSchema/properties/token', '/nodes/0/config/questions/0/id']);
  });

  it('passes an ordinary clarification', () => {
    expect(unsupportedFeatures(wf({ questions: [{ id: 'colour', question: 'Which colour?' }] }))).toEqual([]);
  });

  it('checks core.credential config: provider and scopes required', () => {
    expect(unsupportedFeatures(wf({ provider: 'acme', scopes: ['read'] }, 'core.credential'))).toEqual([]);
    expect(unsupportedFeatures(wf({ scopes: 'read' }, 'core.credential')).map((p) => p.path)).toEqual([
      '/nodes/0/config/provider',
      '/nodes/0/config/scopes',
    ]);
  });
});
