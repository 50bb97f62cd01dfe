import { MAX_JSON_DEPTH, MAX_NODE_EXECUTIONS, MAX_REQUEST_BODY_BYTES } from '@openwop/contracts';
import { buildDiscoveryDocument } from './discovery.document';

describe('discovery document conversation capabilities', () => {
  it('advertises the conversation primitive and the multi-party limit at the root and under capabilities', () => {
    const doc = buildDiscoveryDocument({ maxParticipants: 12 });
    const families = { conversationPrimitive: true, multiPartyConversation: { supported: true, maxParticipants: 12 } };
    expect(doc).toMatchObject({ ...families, capabilities: families });
  });

  it('reads the limit from MAX_CONVERSATION_PARTICIPANTS by default', () => {
    const saved = process.env.MAX_CONVERSATION_PARTICIPANTS;
    process.env.MAX_CONVERSATION_PARTICIPANTS = '5';
    try {
      expect(buildDiscoveryDocument()).toMatchObject({ multiPartyConversation: { supported: true, maxParticipants: 5 } });
    } finally {
      if (saved === undefined) delete process.env.MAX_CONVERSATION_PARTICIPANTS;
      else process.env.MAX_CONVERSATION_PARTICIPANTS = saved;
    }
  });

  it('lists the conversation read routes with the runs:read scope', () => {
    expect(buildDiscoveryDocument({ maxParticipants: 8 }).endpoints).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/v1/runs/{runId}/conversations', scope: 'runs:read' },
        { method: 'GET', path: '/v1/runs/{runId}/conversations/{conversationId}', scope: 'runs:read' },
      ]),
    );
  });

  it('advertises every enforced bound under limits, none of them zero', () => {
    const limits = buildDiscoveryDocument({ maxParticipants: 8 }).limits as Record<string, number>;
    expect(limits).toMatchObject({
      maxNodeExecutions: MAX_NODE_EXECUTIONS,
      maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES,
      maxJsonDepth: MAX_JSON_DEPTH,
      maxParticipants: 8,
    });
    for (const name of ['clarificationRounds', 'schemaRounds', 'envelopesPerTurn', 'maxWorkflowNodes', 'maxWorkflowEdges', 'maxInterruptTimeoutMs', 'maxTurnTsMs']) {
      expect(Number.isInteger(limits[name]) && limits[name]! > 0).toBe(true);
    }
  });
});
