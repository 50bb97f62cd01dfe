import {
  MAX_BULK_DECISION_ITEMS,
  MAX_DELAY_MS,
  MAX_JSON_DEPTH,
  MAX_NODE_EXECUTIONS,
  MAX_REQUEST_BODY_BYTES,
} from '@openwop/contracts';
import { buildDiscoveryDocument } from './discovery.document';
import { GATEWAY_ROUTES } from './gateway-routes.constants';

describe('discovery document conversation capabilities', () => {
  it('advertises the conversation primitive and the multi-party limit at the root and under capabilities', () => {
    const doc = buildDiscoveryDocument({ maxParticipants: 12 });
    const families = {
      conversationPrimitive: true,
      multiPartyConversation: { supported: true, maxParticipants: 12 },
    };
    expect(doc).toMatchObject({ ...families, capabilities: families });
  });

  it('reads the limit from MAX_CONVERSATION_PARTICIPANTS by default', () => {
    const saved = process.env.MAX_CONVERSATION_PARTICIPANTS;
    process.env.MAX_CONVERSATION_PARTICIPANTS = '5';
    try {
      expect(buildDiscoveryDocument()).toMatchObject({
        multiPartyConversation: { supported: true, maxParticipants: 5 },
      });
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

  it('keeps limits to the closed set capabilities.schema.json allows, every value enforced and non-zero', () => {
    const doc = buildDiscoveryDocument({ maxParticipants: 8 });
    expect(doc.limits).toEqual({
      clarificationRounds: MAX_NODE_EXECUTIONS,
      schemaRounds: 1,
      envelopesPerTurn: 1,
      maxNodeExecutions: MAX_NODE_EXECUTIONS,
      maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES,
    });
  });

  it('lists every other enforced bound under extensions.limits, none of them zero', () => {
    const limits = (
      buildDiscoveryDocument({ maxParticipants: 8 }).extensions as { limits: Record<string, number> }
    ).limits;
    expect(limits).toMatchObject({
      maxJsonDepth: MAX_JSON_DEPTH,
      maxDelayMs: MAX_DELAY_MS,
      maxParticipants: 8,
    });
    for (const name of [
      'maxWorkflowNodes',
      'maxWorkflowEdges',
      'maxInterruptTimeoutMs',
      'maxTurnTsMs',
      'maxIdLength',
      'maxRequiredApprovals',
      'maxBulkDecisionItems',
    ]) {
      expect({ name, ok: Number.isInteger(limits[name]) && limits[name]! > 0 }).toEqual({ name, ok: true });
    }
  });

  it('advertises the per-tenant webhook cap it enforces under extensions.limits (100 unless configured)', () => {
    const limitsOf = (doc: Record<string, unknown>) =>
      (doc.extensions as { limits: Record<string, number> }).limits;
    expect(limitsOf(buildDiscoveryDocument({ maxParticipants: 8 })).maxWebhookSubscriptionsPerTenant).toBe(
      100,
    );
    expect(
      limitsOf(buildDiscoveryDocument({ maxParticipants: 8 }, GATEWAY_ROUTES, 7))
        .maxWebhookSubscriptionsPerTenant,
    ).toBe(7);
  });

  it('advertises the bulk decision cap of libs/contracts in extensions.limits, in bulkDecisions and in the OpenAPI document', () => {
    const extensions = buildDiscoveryDocument({ maxParticipants: 8 }).extensions as {
      limits: Record<string, number>;
      bulkDecisions: { maxItems: number };
    };
    expect(extensions.limits.maxBulkDecisionItems).toBe(MAX_BULK_DECISION_ITEMS);
    expect(extensions.bulkDecisions.maxItems).toBe(MAX_BULK_DECISION_ITEMS);
    const documented = JSON.stringify(
      GATEWAY_ROUTES.filter((r) => r.path.startsWith('/v1/interrupts:bulk-')),
    );
    expect(documented).toContain(`"maxItems":${MAX_BULK_DECISION_ITEMS}`);
    expect(documented).toContain(`"maximum":${MAX_BULK_DECISION_ITEMS}`);
  });

  it('advertises the approval actions an answer may carry: edit-accept (interrupt.md §ApprovalResume), never the legacy edit', () => {
    const extensions = buildDiscoveryDocument({ maxParticipants: 8 }).extensions as {
      interrupts: { approvalActions: string[] };
    };
    expect(extensions.interrupts.approvalActions).toEqual([
      'accept',
      'reject',
      'refine',
      'edit-accept',
      'ask',
    ]);
  });

  it('advertises clarification.request, so generic clients see a host with interrupts (profiles.md openwop-interrupts)', () => {
    const doc = buildDiscoveryDocument({ maxParticipants: 8 });
    expect(doc).toMatchObject({
      supportedEnvelopes: ['clarification.request'],
      schemaVersions: { 'clarification.request': 1 },
    });
  });

  it('shapes agents, replay, pause/resume and idempotency as capabilities.schema.json does, at the document root', () => {
    const doc = buildDiscoveryDocument({ maxParticipants: 8 });
    expect(doc).toMatchObject({
      agents: { supported: true, reasoning: { verbosity: 'off' } },
      replay: { supported: true, modes: ['replay', 'branch'] },
      runs: { pauseResume: { supported: true, drainPolicies: ['immediate', 'drain-current-node'] } },
      idempotency: { supported: true, layer1RetentionSeconds: 86_400, crossRegion: 'single-region' },
    });
  });
});
