import type { GatewayRoute, JsonSchema, RouteParameter } from '../discovery/gateway-routes.constants';

/** The longest lease a claim may ask for at the edge (24 hours); the interrupt service bounds it again. */
export const MAX_CLAIM_LEASE_MS = 24 * 60 * 60 * 1000;

const RUN_ID: RouteParameter = {
  name: 'runId',
  in: 'path',
  schema: { type: 'string', minLength: 1 },
  description: 'Run id.',
};
const NODE_ID: RouteParameter = {
  name: 'nodeId',
  in: 'path',
  schema: { type: 'string', minLength: 1 },
  description: 'Id of the suspended node.',
};

const CLAIM_RESULT: JsonSchema = {
  type: 'object',
  required: ['runId', 'nodeId', 'interruptId'],
  properties: {
    runId: { type: 'string' },
    nodeId: { type: 'string' },
    interruptId: { type: 'string' },
    claimedBy: { type: 'string', description: 'The holder; absent after a release.' },
    claimExpiresAt: {
      type: 'string',
      format: 'date-time',
      description: 'When the lease ends unless renewed.',
    },
  },
};

/** The claim routes of the approver's inbox (ADR 0035). */
export const CLAIM_ROUTES: readonly GatewayRoute[] = [
  {
    method: 'POST',
    path: '/v1/runs/{runId}/interrupts/{nodeId}:claim',
    scope: 'approvals:respond',
    operationId: 'claimInterrupt',
    summary:
      'Claim a pending interrupt for a lease (default 15 min) so other approvers see who works on it; the holder renews by claiming again. Someone else holding a live claim: `409 interrupt_claimed` naming the holder and the expiry.',
    tag: 'interrupts',
    parameters: [RUN_ID, NODE_ID],
    body: {
      required: false,
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          leaseMs: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_CLAIM_LEASE_MS,
            description: 'Lease length (default 900000).',
          },
        },
      },
    },
    responses: { 200: { description: 'The claim as it stands.', schema: CLAIM_RESULT } },
    errors: [
      'validation_error',
      'interrupt_not_found',
      'interrupt_claimed',
      'interrupt_already_resolved',
      'unavailable',
    ],
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/interrupts/{nodeId}:release',
    scope: 'approvals:respond',
    operationId: 'releaseInterrupt',
    summary: 'Give a claim back (the holder only; a release of an interrupt nobody holds changes nothing).',
    tag: 'interrupts',
    parameters: [RUN_ID, NODE_ID],
    responses: { 200: { description: 'The claim as it stands (no holder).', schema: CLAIM_RESULT } },
    errors: ['interrupt_not_found', 'interrupt_claimed', 'interrupt_already_resolved', 'unavailable'],
  },
];
