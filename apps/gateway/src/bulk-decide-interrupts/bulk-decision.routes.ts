import {
  INTERRUPT_KINDS,
  MAX_BULK_DECISION_ITEMS,
  MAX_ID_LENGTH,
  MAX_INTERRUPT_AGE_MS,
} from '@openwop/contracts';
import type { GatewayRoute, JsonSchema } from '../discovery/gateway-routes.constants';
import { MAX_BULK_DECISION_REASON_LENGTH } from './bulk-decision.request';

const ID: JsonSchema = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH };

const FILTER: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: "Selects the caller's pending interrupts once, at request time, oldest first.",
  properties: {
    kind: { type: 'string', enum: [...INTERRUPT_KINDS] },
    workflowId: ID,
    runId: ID,
    olderThanMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_INTERRUPT_AGE_MS,
      description: 'Pending at least this long.',
    },
    newerThanMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_INTERRUPT_AGE_MS,
      description: 'Pending at most this long.',
    },
  },
};

const LIMIT: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_BULK_DECISION_ITEMS,
  description: `With a filter: most interrupts it selects (default ${MAX_BULK_DECISION_ITEMS}).`,
};

const items = (withResumeValue: boolean): JsonSchema => ({
  type: 'array',
  minItems: 1,
  maxItems: MAX_BULK_DECISION_ITEMS,
  description: 'The interrupts, each named once; answered in this order.',
  items: {
    type: 'object',
    additionalProperties: false,
    required: withResumeValue ? ['runId', 'nodeId', 'resumeValue'] : ['runId', 'nodeId'],
    properties: {
      runId: ID,
      nodeId: ID,
      ...(withResumeValue
        ? { resumeValue: { description: 'The answer, as the single resolve route takes it.' } }
        : {}),
    },
  },
});

const TARGET: JsonSchema = {
  type: 'object',
  required: ['runId', 'nodeId'],
  properties: { runId: { type: 'string' }, nodeId: { type: 'string' } },
};

const ANSWER: JsonSchema = {
  type: 'object',
  required: ['bulkId', 'results'],
  properties: {
    bulkId: {
      type: 'string',
      description: "The request's `Idempotency-Key` when it had one, else generated.",
    },
    selected: { type: 'array', items: TARGET, description: 'With a filter: what it selected.' },
    truncated: { type: 'boolean', description: 'With a filter: more matched than `limit`.' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['runId', 'nodeId', 'ok'],
        properties: {
          runId: { type: 'string' },
          nodeId: { type: 'string' },
          ok: { type: 'boolean' },
          status: {
            type: 'string',
            description: 'When `ok`: `resolved`/`pending` (resolve), `cancelled`/`cancelling` (cancel).',
          },
          error: {
            type: 'object',
            required: ['code', 'message'],
            description:
              "When not `ok`: `not_found` (also another tenant's run), `interrupt_not_found`, `interrupt_already_resolved`, `forbidden`, `validation_error`, `run_terminal`, `unavailable`, …",
            properties: {
              code: { type: 'string' },
              message: { type: 'string' },
              details: { type: 'object' },
            },
          },
        },
      },
    },
  },
};

/** The bulk decision routes (ADR 0036), spliced into the gateway's route table. */
export const BULK_DECISION_ROUTES: readonly GatewayRoute[] = [
  {
    method: 'POST',
    path: '/v1/interrupts:bulk-resolve',
    scope: 'approvals:respond',
    operationId: 'bulkResolveInterrupts',
    summary: `Resolve up to ${MAX_BULK_DECISION_ITEMS} pending interrupts named by items or a filter, each authorized and answered on its own, in order.`,
    tag: 'interrupts',
    body: {
      required: true,
      schema: {
        type: 'object',
        additionalProperties: false,
        description: 'Exactly one of `items` and `filter`; `resumeValue` goes with the filter.',
        properties: {
          items: items(true),
          filter: FILTER,
          resumeValue: { description: 'With a filter: the answer every selected interrupt gets.' },
          limit: LIMIT,
        },
      },
    },
    responses: { 200: { description: 'One result per selected interrupt.', schema: ANSWER } },
    errors: ['validation_error'],
  },
  {
    method: 'POST',
    path: '/v1/interrupts:bulk-cancel',
    scope: 'runs:cancel',
    operationId: 'bulkCancelInterrupts',
    summary: `Cancel the runs waiting on up to ${MAX_BULK_DECISION_ITEMS} pending interrupts named by items or a filter, answered per item in order.`,
    tag: 'interrupts',
    body: {
      required: true,
      schema: {
        type: 'object',
        additionalProperties: false,
        description: 'Exactly one of `items` and `filter`.',
        properties: {
          items: items(false),
          filter: FILTER,
          limit: LIMIT,
          reason: { type: 'string', maxLength: MAX_BULK_DECISION_REASON_LENGTH },
        },
      },
    },
    responses: { 200: { description: 'One result per selected interrupt.', schema: ANSWER } },
    errors: ['validation_error'],
  },
];
