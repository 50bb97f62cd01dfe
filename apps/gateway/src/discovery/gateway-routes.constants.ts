import { FORK_MODES, MAX_ID_LENGTH } from '@openwop/contracts';
import { AuditQueryDto } from '../audit/audit-query.dto';
import { GetConversationQueryDto } from '../get-conversation/get-conversation.query.dto';
import { ListInterruptsQueryDto } from '../list-interrupts/list-interrupts.query.dto';
import { ListRunsQueryDto } from '../list-runs/list-runs.query.dto';
import { PollRunEventsQueryDto, RunEventsQueryDto } from '../run-events/run-events.query.dto';
import {
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  UnregisterWebhookQueryDto,
} from '../webhooks/webhook-queries.dto';
import { BulkCancelRunsRequestDto } from '../bulk-cancel-runs/bulk-cancel-runs.request.dto';
import { BULK_DECISION_ROUTES } from '../bulk-decide-interrupts/bulk-decision.routes';
import { CancelRunRequestDto } from '../cancel-run/cancel-run.request.dto';
import { CLAIM_ROUTES } from '../claim-interrupt/claim-interrupt.routes';
import type { ErrorCode } from '../common/error-status.table';
import { CreateRunRequestDto } from '../create-run/create-run.request.dto';
import { ForkRunRequestDto } from '../fork-run/fork-run.request.dto';
import { PauseRunRequestDto, ResumeRunRequestDto } from '../pause-run/pause-run.request.dto';
import { RegisterWebhookRequestDto } from '../webhooks/register-webhook.request.dto';
import type { DtoClass } from './class-schema';

/** A JSON Schema (2020-12, as OpenAPI 3.1 takes it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** One parameter of a route (`in: path` ones are always required). */
export interface RouteParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly schema: JsonSchema;
  readonly description?: string;
  readonly required?: boolean;
}

/** One answer a route gives on success. */
export interface RouteResponse {
  readonly description: string;
  /** Media type of the body; `application/json` unless said; `null` for no body. */
  readonly mediaType?: string | null;
  readonly schema?: JsonSchema;
  /** Another representation of the same answer, chosen by `Accept` (a signed link's page for a browser). */
  readonly alternate?: { readonly mediaType: string; readonly schema: JsonSchema };
}

/**
 * A route's request body: the DTO class its validation pipe checks (the document's schema is generated
 * from that class, see `class-schema.ts`), or, for a body a handler checks by hand, its JSON Schema.
 */
export type RouteBody = { readonly required: boolean; readonly mediaTypes?: readonly string[] } & (
  | { readonly dto: DtoClass; readonly schema?: never }
  | { readonly schema: JsonSchema; readonly dto?: never }
);

/** One route the gateway serves: discovery lists it, the OpenAPI document describes it. */
export interface GatewayRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI path template (`{name}` parameters, AIP-136 custom methods as `:verb`). */
  readonly path: string;
  /** Required scope (space-separated when several are, OAuth-style); absent for routes served without credentials. */
  readonly scope?: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag:
    | 'discovery'
    | 'health'
    | 'runs'
    | 'interrupts'
    | 'conversations'
    | 'artifacts'
    | 'workflows'
    | 'webhooks'
    | 'audit'
    | 'operations';
  readonly parameters?: readonly RouteParameter[];
  readonly body?: RouteBody;
  /**
   * The DTO class its query validation pipe checks: one `in: query` parameter per property, generated
   * from it. `parameters` lists the path and header ones, and a query one only the DTO lets through
   * unchecked (`@Allow()`).
   */
  readonly query?: DtoClass;
  /** Success answers by status. */
  readonly responses: Readonly<Record<number, RouteResponse>>;
  /** Error codes of `ERROR_STATUS` the route answers besides the ones every route of its kind does. */
  readonly errors?: readonly ErrorCode[];
  /** A conformance-only seam under `/v1/host/sample/*`: served (and listed) only when its env gate is on. */
  readonly testSeam?: true;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
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
const WEBHOOK_ID: RouteParameter = {
  name: 'webhookId',
  in: 'path',
  schema: { type: 'string', minLength: 1 },
  description: 'Webhook subscription id.',
};
const TOKEN: RouteParameter = {
  name: 'token',
  in: 'path',
  schema: { type: 'string', minLength: 1 },
  description: 'Signed resolution token (RFC 0093).',
};
const STREAM_MODE: RouteParameter = {
  name: 'streamMode',
  in: 'query',
  schema: { type: 'string', pattern: '^(values|updates|messages|debug)(,(values|updates|messages|debug))*$' },
  description:
    '`updates` (default), `values`, `messages`, `debug`, or a comma-separated mix (`values` only alone).',
};
const RESOLVE_BODY = { required: true, schema: ref('ResolveRequest') } as const;
const RESOLVE_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'interrupt_not_found',
  'interrupt_already_resolved',
  'interrupt_expired',
  'correlation_mismatch',
  'run_terminal',
  'unavailable',
];
const RESOLVED: Readonly<Record<number, RouteResponse>> = {
  200: { description: 'The answer was accepted; the run resumes.', schema: ref('ResolveResult') },
};
const HTML = (description: string): RouteResponse => ({
  description,
  mediaType: 'text/html',
  schema: { type: 'string' },
});

/** Every route the gateway serves; the discovery document's `endpoints` and the OpenAPI document's `paths`. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  {
    method: 'GET',
    path: '/.well-known/openwop',
    operationId: 'getCapabilities',
    summary: 'Capability declaration (capabilities.md); conditional GET with `If-None-Match`.',
    tag: 'discovery',
    parameters: [
      {
        name: 'If-None-Match',
        in: 'header',
        schema: { type: 'string' },
        description: 'A validator from an earlier `ETag`: `304` when it matches.',
      },
    ],
    responses: {
      200: { description: 'The capabilities document.', schema: ref('Capabilities') },
      304: { description: 'Not modified.', mediaType: null },
    },
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiSpec',
    summary: 'This OpenAPI 3.1 document.',
    tag: 'discovery',
    responses: {
      200: { description: 'The OpenAPI document.', schema: { type: 'object' } },
      304: { description: 'Not modified.', mediaType: null },
    },
  },
  {
    method: 'GET',
    path: '/docs',
    operationId: 'getApiReference',
    summary: 'API reference page (rendered from `/v1/openapi.json`).',
    tag: 'discovery',
    responses: { 200: HTML('The reference page.') },
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    operationId: 'getApiReferenceAsset',
    summary: 'Script and style files of the API reference page.',
    tag: 'discovery',
    parameters: [{ name: 'asset', in: 'path', schema: { type: 'string' } }],
    responses: {
      200: { description: 'The file.', mediaType: 'application/octet-stream', schema: { type: 'string' } },
    },
  },
  {
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Liveness.',
    tag: 'health',
    responses: { 200: { description: '`{status: "ok"}`', schema: { type: 'object' } } },
  },
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness: the bus and the database answer.',
    tag: 'health',
    responses: { 200: { description: '`{status: "ready", checks}`', schema: { type: 'object' } } },
    errors: ['unavailable'],
  },
  {
    method: 'GET',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics of this gateway.',
    tag: 'operations',
    responses: {
      200: {
        description: 'Prometheus text exposition.',
        mediaType: 'text/plain',
        schema: { type: 'string' },
      },
    },
  },
  {
    method: 'GET',
    path: '/admin',
    operationId: 'getAdminPage',
    summary: 'Operator page (reads the API with a key the operator types in).',
    tag: 'operations',
    responses: { 200: HTML('The page.') },
  },
  {
    method: 'GET',
    path: '/admin/assets/{name}',
    operationId: 'getAdminAsset',
    summary: 'Script and style files of the operator page.',
    tag: 'operations',
    parameters: [{ name: 'name', in: 'path', schema: { type: 'string' } }],
    responses: {
      200: { description: 'The file.', mediaType: 'application/octet-stream', schema: { type: 'string' } },
    },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/link/assets/{name}',
    operationId: 'getSignedLinkPageAsset',
    summary: 'Script and style files of the page a browser gets at a signed link.',
    tag: 'operations',
    parameters: [{ name: 'name', in: 'path', schema: { type: 'string' } }],
    responses: {
      200: { description: 'The file.', mediaType: 'application/octet-stream', schema: { type: 'string' } },
    },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/oauth/connect/{runId}/{nodeId}',
    scope: 'approvals:respond',
    operationId: 'connectCredential',
    summary:
      "A credential interrupt's connectUrl (RFC 0199 §C.3): for the run's principal only, starts an authorization-code grant with PKCE S256 at the provider; anyone else gets 404.",
    tag: 'interrupts',
    parameters: [RUN_ID, NODE_ID],
    responses: {
      200: {
        description: 'A credential already resolved: the interrupt is resolved `authorized`.',
        schema: { type: 'object', properties: { outcome: { type: 'string' }, provider: { type: 'string' } } },
      },
      302: {
        description: "Redirect to the provider's authorization endpoint (`Location`).",
        mediaType: null,
      },
    },
    errors: ['not_found', 'validation_error', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/oauth/callback/{providerId}',
    operationId: 'oauthCallback',
    summary:
      "The provider's fixed redirect URI: completes the grant bound to `state` for its Subject only, stores the credential sealed and resolves the credential interrupt.",
    tag: 'interrupts',
    parameters: [
      { name: 'providerId', in: 'path', schema: { type: 'string', minLength: 1 } },
      { name: 'code', in: 'query', schema: { type: 'string' } },
      { name: 'state', in: 'query', schema: { type: 'string' } },
      { name: 'iss', in: 'query', schema: { type: 'string' } },
      { name: 'error', in: 'query', schema: { type: 'string' } },
    ],
    responses: {
      200: {
        description:
          'The grant completed (`authorized`) or the user refused it at the provider (`declined`).',
        schema: { type: 'object', properties: { outcome: { type: 'string' }, provider: { type: 'string' } } },
      },
    },
    errors: ['validation_error', 'unauthenticated', 'forbidden', 'not_found', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/runs',
    scope: 'runs:create',
    operationId: 'createRun',
    summary: 'Start a run of a registered workflow.',
    tag: 'runs',
    body: { required: true, dto: CreateRunRequestDto },
    responses: { 201: { description: 'Run accepted.', schema: ref('CreateRunResponse') } },
    errors: ['validation_error', 'capability_required', 'run_already_exists', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/v1/runs',
    scope: 'runs:read',
    operationId: 'listRuns',
    summary: "List the caller's runs, newest first.",
    tag: 'runs',
    query: ListRunsQueryDto,
    responses: { 200: { description: 'One page of runs.', schema: ref('RunPage') } },
    errors: ['validation_error'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}',
    scope: 'runs:read',
    operationId: 'getRun',
    summary: 'Read a run (projected snapshot).',
    tag: 'runs',
    parameters: [RUN_ID],
    responses: { 200: { description: 'The run.', schema: ref('RunSnapshot') } },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}/events',
    scope: 'runs:read',
    operationId: 'streamRunEvents',
    summary: 'Run events: an SSE stream (`Accept: text/event-stream`) or one JSON page.',
    tag: 'runs',
    parameters: [
      RUN_ID,
      STREAM_MODE,
      {
        name: 'Last-Event-ID',
        in: 'header',
        schema: { type: 'string' },
        description: 'Resume the stream after this event id.',
      },
    ],
    query: RunEventsQueryDto,
    responses: {
      200: {
        description: 'SSE (`text/event-stream`, ends after the terminal event) or `{events, nextAfter}`.',
        mediaType: 'text/event-stream',
        schema: { type: 'string' },
      },
    },
    errors: ['validation_error', 'unsupported_stream_mode', 'not_found'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}/events/poll',
    scope: 'runs:read',
    operationId: 'pollRunEvents',
    summary: 'Long poll for events after a sequence.',
    tag: 'runs',
    parameters: [RUN_ID, STREAM_MODE],
    query: PollRunEventsQueryDto,
    responses: {
      200: { description: 'Events after the given sequence (possibly none).', schema: ref('RunEventPage') },
    },
    errors: ['validation_error', 'unsupported_stream_mode', 'not_found'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}/artifacts/{artifactId}',
    scope: 'artifacts:read',
    operationId: 'getArtifact',
    summary: 'Read a run-produced artifact (the latest `artifact.created` with that id).',
    tag: 'artifacts',
    parameters: [
      RUN_ID,
      {
        name: 'artifactId',
        in: 'path',
        schema: { type: 'string', minLength: 1 },
        description: 'Artifact id, as `artifact.created` named it.',
      },
    ],
    responses: {
      200: {
        description:
          'The artifact: `{runId, artifactId, artifactType, nodeId?, data?, createdAt, sequence}` and any other member of its `artifact.created`.',
        schema: {
          type: 'object',
          required: ['runId', 'artifactId', 'artifactType', 'createdAt', 'sequence'],
        },
      },
    },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}/conversations',
    scope: 'runs:read',
    operationId: 'listConversations',
    summary: "The run's conversations (RFC 0005).",
    tag: 'conversations',
    parameters: [RUN_ID],
    responses: {
      200: {
        description: 'Conversation summaries.',
        schema: {
          type: 'object',
          required: ['conversations'],
          properties: { conversations: { type: 'array', items: { type: 'object' } } },
        },
      },
    },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}/conversations/{conversationId}',
    scope: 'runs:read',
    operationId: 'getConversation',
    summary: "One conversation's transcript, paged by turn.",
    tag: 'conversations',
    parameters: [RUN_ID, { name: 'conversationId', in: 'path', schema: { type: 'string', minLength: 1 } }],
    query: GetConversationQueryDto,
    responses: {
      200: {
        description: 'The transcript page.',
        schema: { type: 'object', properties: { turns: { type: 'array', items: ref('ConversationTurn') } } },
      },
    },
    errors: ['validation_error', 'not_found'],
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/interrupts/{nodeId}',
    scope: 'approvals:respond',
    operationId: 'resolveInterruptByRun',
    summary: 'Answer the interrupt a node is suspended on.',
    tag: 'interrupts',
    parameters: [RUN_ID, NODE_ID],
    body: RESOLVE_BODY,
    responses: RESOLVED,
    errors: RESOLVE_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/approvals/{nodeId}',
    scope: 'approvals:respond',
    operationId: 'resolveApproval',
    summary: 'Answer an approval gate (legacy alias of the interrupts route).',
    tag: 'interrupts',
    parameters: [RUN_ID, NODE_ID],
    body: RESOLVE_BODY,
    responses: RESOLVED,
    errors: RESOLVE_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}:resolveInterrupt',
    scope: 'approvals:respond',
    operationId: 'resolveInterrupt',
    summary: 'Answer an interrupt of the run, naming the node in the body.',
    tag: 'interrupts',
    parameters: [RUN_ID],
    body: RESOLVE_BODY,
    responses: RESOLVED,
    errors: RESOLVE_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/cancel',
    scope: 'runs:cancel',
    operationId: 'cancelRun',
    summary: 'Cancel a run; idempotent (an ended run answers its terminal status).',
    tag: 'runs',
    parameters: [RUN_ID],
    body: { required: false, dto: CancelRunRequestDto },
    responses: {
      200: {
        description: 'Cancelled, cancelling, or the terminal status the run already had.',
        schema: ref('RunStatusResult'),
      },
    },
    errors: ['validation_error', 'not_found', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/runs:bulk-cancel',
    scope: 'runs:cancel',
    operationId: 'bulkCancelRuns',
    summary: 'Cancel up to 100 runs, answered per id in order.',
    tag: 'runs',
    body: { required: true, dto: BulkCancelRunsRequestDto },
    responses: { 200: { description: 'One result per id.', schema: ref('BulkCancelResponse') } },
    errors: ['validation_error', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}:fork',
    scope: 'runs:create runs:read',
    operationId: 'forkRun',
    summary:
      'Fork a run from an event sequence, in replay or branch mode (replay.md). A fork that reuses a recorded interrupt resolution also needs approvals:respond (403 otherwise).',
    tag: 'runs',
    parameters: [RUN_ID],
    body: { required: true, dto: ForkRunRequestDto },
    responses: {
      201: {
        description: 'The new run.',
        schema: {
          type: 'object',
          required: ['runId', 'sourceRunId', 'fromSeq', 'mode', 'status', 'eventsUrl'],
          properties: {
            runId: { type: 'string', description: 'The new run.' },
            sourceRunId: { type: 'string', description: 'The run it was forked from.' },
            fromSeq: { type: 'integer', minimum: 0 },
            mode: { type: 'string', enum: [...FORK_MODES] },
            status: { type: 'string', description: 'Status of the projected new run.' },
            eventsUrl: { type: 'string', description: 'SSE endpoint of the new run.' },
            statusUrl: { type: 'string', description: '`GET /v1/runs/{runId}` of the new run.' },
          },
        },
      },
    },
    errors: ['validation_error', 'not_found', 'sequence_not_found', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}:pause',
    scope: 'runs:cancel',
    operationId: 'pauseRun',
    summary: 'Pause a run: it executes nothing until resumed.',
    tag: 'runs',
    parameters: [RUN_ID],
    body: { required: false, dto: PauseRunRequestDto },
    responses: {
      202: {
        description:
          'Pause accepted; `pausedAt` once `run.paused` is written (a drain-current-node pause writes it after the executing node reaches a terminal).',
        schema: {
          type: 'object',
          required: ['runId', 'status'],
          properties: {
            runId: { type: 'string' },
            status: { type: 'string' },
            pausedAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    errors: ['validation_error', 'not_found', 'run_already_paused', 'run_terminal', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}:resume',
    scope: 'runs:cancel',
    operationId: 'resumeRun',
    summary: 'Resume a paused run.',
    tag: 'runs',
    parameters: [RUN_ID],
    body: { required: false, dto: ResumeRunRequestDto },
    responses: {
      202: {
        description: 'Resumed.',
        schema: {
          type: 'object',
          required: ['runId', 'status', 'resumedAt'],
          properties: {
            runId: { type: 'string' },
            status: { type: 'string' },
            resumedAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    errors: ['validation_error', 'not_found', 'run_not_paused', 'run_terminal', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/v1/interrupts',
    scope: 'runs:read',
    operationId: 'listInterrupts',
    summary:
      "The approver's inbox: the caller's pending interrupts with what each asks, its age, approvers and live claim (`assignee`, `claimExpiresAt`); youngest first, or oldest first with `sort=-age`.",
    tag: 'interrupts',
    query: ListInterruptsQueryDto,
    responses: {
      200: {
        description: 'One page of interrupts.',
        schema: {
          type: 'object',
          required: ['interrupts', 'nextCursor'],
          properties: {
            interrupts: { type: 'array', items: { type: 'object' } },
            nextCursor: { type: ['string', 'null'] },
          },
        },
      },
    },
    errors: ['validation_error'],
  },
  ...BULK_DECISION_ROUTES,
  ...CLAIM_ROUTES,
  {
    method: 'GET',
    path: '/v1/interrupts/{token}',
    operationId: 'inspectInterruptByToken',
    summary:
      'Inspect the interrupt a signed token names (no API key); a browser (`Accept` naming `text/html`) gets the approver page for it.',
    tag: 'interrupts',
    parameters: [TOKEN],
    responses: {
      200: {
        description: 'The interrupt; for `Accept: text/html`, the page that shows and answers it.',
        schema: { type: 'object' },
        alternate: { mediaType: 'text/html', schema: { type: 'string' } },
      },
    },
    errors: ['interrupt_not_found', 'interrupt_expired', 'interrupt_already_resolved', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/v1/interrupts/{token}/conversation',
    operationId: 'getConversationByToken',
    summary:
      "Read-only transcript of the conversation the token's interrupt holds (no API key; the signed-link page's live view).",
    tag: 'interrupts',
    parameters: [TOKEN],
    query: GetConversationQueryDto,
    responses: {
      200: {
        description:
          '`{conversationId, nodeId, status, turnCount, openedAt, closedAt?, turns, nextCursor?}`; `nextCursor` is the `after` of the next page.',
        schema: { type: 'object', required: ['conversationId', 'status', 'turns'] },
      },
    },
    errors: [
      'validation_error',
      'not_found',
      'interrupt_not_found',
      'interrupt_expired',
      'interrupt_already_resolved',
      'unavailable',
    ],
  },
  {
    method: 'GET',
    path: '/v1/interrupts/{token}/outcome',
    operationId: 'getInterruptOutcomeByToken',
    summary:
      "Where the token's interrupt stands (no API key): `pending`, `answered` (the link is used up) or `run-ended`, with the run's status.",
    tag: 'interrupts',
    parameters: [TOKEN],
    responses: {
      200: {
        description:
          '`{state, runId, nodeId, interruptId, expiresAt, intent, runStatus?, answer?: {outcome, reason?, resolvedAt, action?}}`.',
        schema: {
          type: 'object',
          required: ['state', 'runId'],
          properties: {
            state: { type: 'string', enum: ['pending', 'answered', 'run-ended'] },
            runStatus: { type: 'string' },
          },
        },
      },
    },
    errors: ['interrupt_not_found', 'interrupt_expired', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/interrupts/{token}',
    operationId: 'resolveInterruptByToken',
    summary: 'Answer the interrupt a signed token names (no API key; single use).',
    tag: 'interrupts',
    parameters: [TOKEN],
    body: RESOLVE_BODY,
    responses: RESOLVED,
    errors: RESOLVE_ERRORS,
  },
  {
    method: 'POST',
    path: '/v1/workflows',
    scope: 'manifest:write',
    operationId: 'registerWorkflow',
    summary: 'Register a workflow definition (JSON, or YAML with `Content-Type: application/yaml`).',
    tag: 'workflows',
    body: {
      required: true,
      schema: ref('WorkflowDefinition'),
      mediaTypes: ['application/json', 'application/yaml'],
    },
    responses: {
      201: {
        description: 'Registered.',
        schema: { type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'string' } } },
      },
    },
    errors: ['validation_error', 'capability_required', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/v1/workflows/{workflowId}',
    scope: 'manifest:read',
    operationId: 'getWorkflow',
    summary: 'Read a workflow definition.',
    tag: 'workflows',
    parameters: [{ name: 'workflowId', in: 'path', schema: { type: 'string', minLength: 1 } }],
    responses: { 200: { description: 'The definition.', schema: ref('WorkflowDefinition') } },
    errors: ['not_found'],
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    scope: 'webhooks:manage',
    operationId: 'registerWebhook',
    summary: 'Register a webhook subscription (webhooks.md); the secret is returned once.',
    tag: 'webhooks',
    body: { required: true, dto: RegisterWebhookRequestDto },
    responses: {
      201: {
        description:
          'Registered. A replay under the same `Idempotency-Key` answers the same status and body without `secret` (`openwop-Idempotent-Replay: true`).',
        schema: {
          type: 'object',
          required: ['webhookId', 'secretFingerprint', 'signatureAlgorithm'],
          properties: {
            webhookId: { type: 'string' },
            secret: {
              type: 'string',
              description: '64 hex characters; shown only in the first answer, never in a replay.',
            },
            secretFingerprint: { type: 'string', description: 'First 8 hex of sha256(secret).' },
            signatureAlgorithm: { type: 'string', enum: ['v1'] },
            tenantId: { type: 'string' },
            durable: { type: 'boolean' },
          },
        },
      },
    },
    errors: ['validation_error', 'webhook_url_rejected', 'webhook_limit_exceeded'],
  },
  {
    method: 'GET',
    path: '/v1/webhooks',
    scope: 'webhooks:manage',
    operationId: 'listWebhooks',
    summary: "The tenant's webhook subscriptions (fingerprints, never secrets).",
    tag: 'webhooks',
    query: ListWebhooksQueryDto,
    responses: {
      200: {
        description: 'The subscriptions.',
        schema: {
          type: 'object',
          required: ['webhooks'],
          properties: { webhooks: { type: 'array', items: ref('Webhook') } },
        },
      },
    },
    errors: ['validation_error'],
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{webhookId}',
    scope: 'webhooks:manage',
    operationId: 'getWebhook',
    summary: 'One webhook subscription.',
    tag: 'webhooks',
    parameters: [WEBHOOK_ID],
    responses: { 200: { description: 'The subscription.', schema: ref('Webhook') } },
    errors: ['subscription_not_found'],
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/{webhookId}',
    scope: 'webhooks:manage',
    operationId: 'unregisterWebhook',
    summary: 'Unregister a webhook; its pending deliveries go with it.',
    tag: 'webhooks',
    parameters: [WEBHOOK_ID],
    query: UnregisterWebhookQueryDto,
    responses: { 204: { description: 'Unregistered.', mediaType: null } },
    errors: ['validation_error', 'subscription_not_found'],
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/rotate-secret',
    scope: 'webhooks:manage',
    operationId: 'rotateWebhookSecret',
    summary:
      'Rotate a webhook secret: a new one, returned once; the previous one keeps signing beside it for the overlap (v2 webhooks.md §Standard Webhooks "Rotation"). Not advertised.',
    tag: 'webhooks',
    parameters: [WEBHOOK_ID],
    responses: {
      200: {
        description:
          'The new secret (absent on an idempotent replay), its fingerprint, and until when the previous secret signs too.',
        schema: {
          type: 'object',
          required: ['webhookId', 'secretFingerprint', 'overlapSeconds', 'previousSecretExpiresAt'],
          properties: {
            webhookId: { type: 'string' },
            secret: { type: 'string' },
            secretFingerprint: { type: 'string' },
            overlapSeconds: { type: 'integer', minimum: 1 },
            previousSecretExpiresAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    errors: ['subscription_not_found', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/v1/webhook-deliveries',
    scope: 'webhooks:manage',
    operationId: 'listWebhookDeliveries',
    summary: 'Webhook deliveries of the tenant; `status=dead` lists the dead letters (RFC 0083).',
    tag: 'webhooks',
    query: ListDeliveriesQueryDto,
    responses: {
      200: {
        description: 'The deliveries, oldest first.',
        schema: {
          type: 'object',
          required: ['deliveries'],
          properties: { deliveries: { type: 'array', items: ref('WebhookDelivery') } },
        },
      },
    },
    errors: ['validation_error'],
  },
  {
    method: 'POST',
    path: '/v1/webhook-deliveries/{deliveryId}:replay',
    scope: 'webhooks:manage',
    operationId: 'replayWebhookDelivery',
    summary: 'Send a dead (or failed) delivery again, with a fresh budget of attempts.',
    tag: 'webhooks',
    parameters: [{ name: 'deliveryId', in: 'path', schema: { type: 'string', minLength: 1 } }],
    responses: { 200: { description: 'The delivery, pending again.', schema: ref('WebhookDelivery') } },
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/v1/audit',
    scope: 'audit:read',
    operationId: 'exportAudit',
    summary:
      "The caller's tenant's audit log as NDJSON, one hash-chained record per decision in seq order (keyset: `after` = the last seq held); verify a file offline with `wop audit verify`.",
    tag: 'audit',
    query: AuditQueryDto,
    responses: {
      200: {
        description:
          'One `AuditRecord` per line. With a signing key, the `OpenWOP-Audit-Head` header holds a `SignedAuditHead` (base64url JSON) signed before the first page was read.',
        mediaType: 'application/x-ndjson',
        schema: ref('AuditRecord'),
      },
    },
    errors: ['validation_error'],
  },
  {
    method: 'GET',
    path: '/v1/audit/head',
    scope: 'audit:read',
    operationId: 'getAuditHead',
    summary:
      "The caller's tenant's chain head (last seq and hash) signed now with the host's Ed25519 audit key: an export that holds that record with that hash was not rewritten up to it (`wop audit verify --public-key`).",
    tag: 'audit',
    responses: { 200: { description: 'The signed head.', schema: ref('SignedAuditHead') } },
    // 404 (details.reason audit_signing_key_missing): this host, as configured, signs no heads.
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/v1/audit/public-key',
    operationId: 'getAuditPublicKey',
    summary: "The host's Ed25519 audit public key, which signs chain heads; served without credentials.",
    tag: 'audit',
    responses: { 200: { description: 'The public key.', schema: ref('AuditPublicKey') } },
    errors: ['not_found'],
  },
  {
    method: 'POST',
    path: '/v1/host/sample/conversation/multi-party/open',
    scope: 'runs:create',
    operationId: 'hostSampleOpenMultiPartyConversation',
    summary:
      'Conformance seam (host-sample-test-seams.md, RFC 0101): open a council with this roster as a run of one conversation gate in your tenant; idempotent per conversationId. Served only with OPENWOP_TEST_SEAM_ENABLED=true.',
    tag: 'conversations',
    testSeam: true,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['conversationId', 'participants'],
        properties: {
          conversationId: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
          participants: {
            type: 'array',
            items: {
              type: 'object',
              required: ['agentId'],
              properties: { agentId: { type: 'string' }, name: { type: 'string' } },
            },
          },
          maxParticipants: { type: 'integer', minimum: 1 },
        },
      },
    },
    responses: {
      200: {
        description: 'The council is open and waits for turns.',
        schema: {
          type: 'object',
          required: ['conversationId', 'accepted'],
          properties: {
            conversationId: { type: 'string' },
            accepted: { const: true },
            runId: { type: 'string' },
          },
        },
      },
    },
    errors: ['validation_error', 'unavailable'],
  },
  {
    method: 'POST',
    path: '/v1/host/sample/conversation/multi-party/exchange',
    scope: 'approvals:respond',
    operationId: 'hostSampleExchangeMultiPartyTurn',
    summary:
      "Conformance seam (host-sample-test-seams.md, RFC 0101): send one turn to a council opened with the seam, through the conversation's roster and attribution rules. Served only with OPENWOP_TEST_SEAM_ENABLED=true.",
    tag: 'conversations',
    testSeam: true,
    body: {
      required: true,
      schema: {
        type: 'object',
        required: ['conversationId', 'turn'],
        properties: {
          conversationId: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
          turn: ref('ConversationTurn'),
        },
      },
    },
    responses: {
      200: {
        description: 'The turn is in the transcript.',
        schema: {
          type: 'object',
          required: ['accepted'],
          properties: {
            accepted: { const: true },
            conversationId: { type: 'string' },
            runId: { type: 'string' },
            turnIndex: { type: 'integer' },
          },
        },
      },
    },
    errors: ['validation_error', 'not_found', 'interrupt_not_found', 'run_terminal', 'unavailable'],
  },
];

/** The routes this gateway serves: {@link GATEWAY_ROUTES}, less the test seams unless they are on. */
export function servedGatewayRoutes(testSeams: boolean): readonly GatewayRoute[] {
  return testSeams ? GATEWAY_ROUTES : GATEWAY_ROUTES.filter((r) => r.testSeam !== true);
}
