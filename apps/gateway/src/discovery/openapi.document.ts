import { AUDIT_ACTIONS, AUDIT_ROUTES } from '@openwop/audit-chain';
import {
  APPROVAL_RESOLVE_ACTIONS,
  MAX_ID_LENGTH,
  MAX_REQUEST_BODY_BYTES,
  MAX_SEQUENCE,
  RUN_STATUSES,
} from '@openwop/contracts';
import { ERROR_STATUS, type ErrorCode } from '../common/error-status.table';
import { MUTATING_METHODS } from '../idempotency/idempotency-key';
import { IMPLEMENTATION, SUPPORTED_ENVELOPES } from './discovery.document';
import { classSchema, componentNameOf } from './class-schema';
import {
  GATEWAY_ROUTES,
  type GatewayRoute,
  type JsonSchema,
  type RouteBody,
  type RouteParameter,
} from './gateway-routes.constants';

/** Name of the security scheme every keyed route requires. */
export const API_KEY_SCHEME = 'ApiKeyAuth';

/** Errors every route with an API key can answer (auth.md), and every route with a body (the intake). */
const KEYED_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden'];
const BODY_ERRORS: readonly ErrorCode[] = ['validation_error', 'payload_too_large', 'unsupported_media_type'];
/** `Idempotency-Key` on every POST (idempotency.md); its two refusals. */
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'idempotency_key_mismatch',
  'idempotency_in_flight',
];
/** Under major 2 a key outside the grammar or under the floor is `idempotency_key_invalid` (ADR 0041). */
const V2_IDEMPOTENCY_ERRORS: readonly ErrorCode[] = [
  'idempotency_key_invalid',
  'idempotency_key_mismatch',
  'idempotency_in_flight',
];
/** Any route may fail unexpectedly; the gateway then answers `internal_error`. */
const ALWAYS: readonly ErrorCode[] = ['internal_error'];

/** Component schemas: the wire shapes of the spec (`schemas/*.json`, `api/openapi.yaml`), as this host answers them. */
function componentSchemas(): Record<string, JsonSchema> {
  return {
    ErrorEnvelope: {
      type: 'object',
      description:
        'Every non-2xx answer (rest-endpoints.md §error-envelope, `schemas/error-envelope.schema.json`).',
      required: ['error', 'message'],
      properties: {
        error: { type: 'string', minLength: 1, description: 'Machine-readable code.' },
        message: { type: 'string', minLength: 1 },
        details: {
          type: 'object',
          description: 'Code-specific context (`errors[]` for `validation_error`, `correlationId` on a 5xx).',
        },
      },
      additionalProperties: false,
    },
    Capabilities: {
      type: 'object',
      description: 'The capability declaration (`schemas/capabilities.schema.json`).',
      required: ['protocolVersion', 'supportedEnvelopes', 'schemaVersions', 'limits'],
      properties: {
        protocolVersion: { type: 'string' },
        supportedEnvelopes: { type: 'array', items: { type: 'string', enum: [...SUPPORTED_ENVELOPES] } },
        schemaVersions: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
        limits: {
          type: 'object',
          required: ['clarificationRounds', 'schemaRounds', 'envelopesPerTurn'],
          additionalProperties: { type: 'integer', minimum: 0 },
        },
        fixtures: { type: 'array', items: { type: 'string' } },
      },
    },
    RunSnapshot: {
      type: 'object',
      description: 'Projected run state (`schemas/run-snapshot.schema.json`).',
      required: ['runId', 'workflowId', 'status'],
      properties: {
        runId: { type: 'string' },
        workflowId: { type: 'string' },
        status: { type: 'string', enum: [...RUN_STATUSES] },
        owner: { type: 'object', properties: { tenant: { type: 'string' }, principal: { type: 'string' } } },
        currentNodeId: { type: ['string', 'null'] },
        nodeStates: { type: 'object' },
        variables: { type: 'object' },
        error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
        tags: { type: 'array', items: { type: 'string' } },
        metadata: { type: 'object' },
        lastSequence: { type: 'integer', minimum: 0 },
      },
    },
    RunEvent: {
      type: 'object',
      description: 'One event of the run log (`schemas/run-event.schema.json`).',
      required: ['eventId', 'runId', 'type', 'payload', 'timestamp', 'sequence'],
      properties: {
        eventId: { type: 'string' },
        runId: { type: 'string' },
        nodeId: { type: 'string' },
        type: { type: 'string' },
        payload: {},
        timestamp: { type: 'string', format: 'date-time' },
        sequence: { type: 'integer', minimum: 0, maximum: MAX_SEQUENCE },
      },
    },
    RunEventPage: {
      type: 'object',
      required: ['events'],
      properties: {
        events: { type: 'array', items: { $ref: '#/components/schemas/RunEvent' } },
        nextAfter: { type: 'integer' },
        isComplete: { type: 'boolean' },
      },
    },
    RunPage: {
      type: 'object',
      required: ['runs', 'nextCursor'],
      properties: {
        runs: { type: 'array', items: { type: 'object' } },
        nextCursor: { type: ['string', 'null'] },
      },
    },
    RunStatusResult: {
      type: 'object',
      required: ['runId', 'status'],
      properties: { runId: { type: 'string' }, status: { type: 'string', enum: [...RUN_STATUSES] } },
    },
    CreateRunResponse: {
      type: 'object',
      required: ['runId', 'status', 'eventsUrl'],
      properties: {
        runId: { type: 'string' },
        status: { type: 'string' },
        eventsUrl: { type: 'string' },
        statusUrl: { type: 'string' },
      },
    },
    Webhook: {
      type: 'object',
      required: [
        'webhookId',
        'tenantId',
        'url',
        'events',
        'tags',
        'durable',
        'status',
        'secretFingerprint',
        'circuit',
        'createdAt',
      ],
      properties: {
        webhookId: { type: 'string' },
        tenantId: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' } },
        durable: { type: 'boolean' },
        status: { type: 'string', enum: ['active', 'failed'] },
        secretFingerprint: { type: 'string' },
        circuit: { type: 'string', enum: ['closed', 'open', 'half-open'] },
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
    AuditRecord: {
      type: 'object',
      description:
        "One line of `GET /v1/audit` (NDJSON): a decision in its tenant's hash chain. `hash` = SHA-256 (hex) of the canonical JSON (keys sorted, no whitespace) of `{seq, prev_hash, record}`; `prev_hash` of seq 1 is 64 zeros. Verify offline with `wop audit verify <file>`.",
      required: ['tenant', 'seq', 'at', 'record', 'prev_hash', 'hash'],
      properties: {
        tenant: { type: 'string' },
        seq: { type: 'integer', minimum: 1, description: 'Gapless per tenant.' },
        at: { type: 'string', format: 'date-time' },
        record: {
          type: 'object',
          required: ['factId', 'tenant', 'at', 'who', 'route', 'action', 'runId'],
          properties: {
            factId: { type: 'string' },
            tenant: { type: 'string' },
            at: { type: 'string', format: 'date-time' },
            who: {
              type: 'string',
              description: 'The principal; `token:<kid>` for a signed link; `system:*` for the host.',
            },
            keyId: { type: 'string', description: "The API key's id (never the key), or `token:<kid>`." },
            route: { type: 'string', enum: [...AUDIT_ROUTES] },
            action: { type: 'string', enum: [...AUDIT_ACTIONS] },
            runId: { type: 'string' },
            interruptId: { type: 'string' },
            nodeId: { type: 'string' },
            kind: { type: 'string' },
            outcome: { type: 'string' },
            answerAction: { type: 'string' },
            answerDigest: {
              type: 'string',
              description: '`sha256:<hex>` of the canonical JSON of the answer.',
            },
            reason: { type: 'string' },
            interrupts: { type: 'array', items: { type: 'string' } },
            admittedAs: {
              type: 'string',
              description:
                'On an enforced approvers list: the entry that admitted `who` (itself, `group:<name>`, or on a major-2 run `role:<name>`).',
            },
          },
        },
        prev_hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    },
    SignedAuditHead: {
      type: 'object',
      description:
        "A tenant chain's head signed with the host's audit key: Ed25519 over the canonical JSON (keys sorted) of `{purpose: 'openwop.audit-head.v1', kid, tenant, seq, hash, signedAt}`; `signature` is base64url. The first line of `wop audit export`.",
      required: ['type', 'alg', 'kid', 'head', 'signature'],
      properties: {
        type: { type: 'string', enum: ['audit-head'] },
        alg: { type: 'string', enum: ['Ed25519'] },
        kid: { type: 'string', description: 'The first 16 hex digits of SHA-256 over the raw public key.' },
        head: {
          type: 'object',
          required: ['tenant', 'seq', 'hash', 'signedAt'],
          properties: {
            tenant: { type: 'string' },
            seq: {
              type: 'integer',
              minimum: 0,
              description: 'The last record when signed; 0 for an empty chain.',
            },
            hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            signedAt: { type: 'string', format: 'date-time' },
          },
        },
        signature: { type: 'string' },
      },
    },
    AuditPublicKey: {
      type: 'object',
      required: ['alg', 'kid', 'publicKey', 'pem'],
      properties: {
        alg: { type: 'string', enum: ['Ed25519'] },
        kid: { type: 'string' },
        publicKey: {
          type: 'string',
          description: 'The 32 raw bytes, base64url: what `wop audit verify --public-key` takes.',
        },
        pem: { type: 'string', description: 'The same key as an SPKI PEM.' },
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: [
        'deliveryId',
        'webhookId',
        'runId',
        'eventId',
        'sequence',
        'eventType',
        'status',
        'attempts',
        'maxAttempts',
      ],
      properties: {
        deliveryId: { type: 'string' },
        webhookId: { type: 'string' },
        runId: { type: 'string' },
        eventId: { type: 'string' },
        sequence: { type: 'integer' },
        eventType: { type: 'string' },
        status: { type: 'string', enum: ['pending', 'in_flight', 'delivered', 'failed', 'dead', 'skipped'] },
        attempts: { type: 'integer' },
        maxAttempts: { type: 'integer' },
        lastStatus: { type: ['integer', 'null'] },
        lastError: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
        deliveredAt: { type: ['string', 'null'], format: 'date-time' },
      },
    },
    BulkCancelResponse: {
      type: 'object',
      required: ['results'],
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            required: ['runId', 'ok'],
            properties: {
              runId: { type: 'string' },
              ok: { type: 'boolean' },
              status: { type: 'string', description: 'When `ok`: the status the run now has.' },
              error: {
                type: 'object',
                description: "When not `ok`: why (`not_found` also for another tenant's run).",
                properties: {
                  code: { type: 'string' },
                  error: { type: 'string' },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
    ResolveRequest: {
      type: 'object',
      description:
        'The answer (interrupt.md): `resumeValue`, or for approvals an `action` (legacy `decision` normalized); a clarification `answers`, an external event its `correlationId`, a conversation turn or close.',
      properties: {
        nodeId: { type: 'string', description: '`:resolveInterrupt` only: the suspended node.' },
        action: { type: 'string', enum: [...APPROVAL_RESOLVE_ACTIONS] },
        decision: { type: 'string' },
        resumeValue: {},
        comment: { type: 'string' },
      },
    },
    ResolveResult: {
      type: 'object',
      required: ['runId'],
      properties: { runId: { type: 'string' }, nodeId: { type: 'string' }, status: { type: 'string' } },
    },
    ConversationTurn: {
      type: 'object',
      description: '`schemas/conversation-turn.schema.json`.',
      required: ['messageId', 'from', 'content', 'ts', 'role', 'turnIndex'],
      properties: {
        messageId: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        content: {},
        ts: { type: 'integer', minimum: 0 },
        role: { type: 'string' },
        turnIndex: { type: 'integer', minimum: 0 },
        speakerId: { type: 'string' },
      },
    },
    WorkflowDefinition: {
      type: 'object',
      description: '`schemas/workflow-definition.schema.json`.',
      required: ['id', 'nodes'],
      properties: {
        id: { type: 'string', maxLength: MAX_ID_LENGTH },
        name: { type: 'string' },
        nodes: { type: 'array', items: { type: 'object' } },
        edges: { type: 'array', items: { type: 'object' } },
      },
    },
  };
}

/** `/v1/runs/:runId\:fork` → `/v1/runs/{runId}:fork`: an Express path as an OpenAPI template. */
export function openApiPathOf(expressPath: string): string {
  // `\\:` is a literal colon (a custom method); any other `:name` is a parameter.
  return expressPath.replace(
    /(\\)?:([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, escaped: string | undefined, name: string) => (escaped ? `:${name}` : `{${name}}`),
  );
}

function parameterObject(p: RouteParameter): Record<string, unknown> {
  return {
    name: p.name,
    in: p.in,
    required: p.in === 'path' ? true : (p.required ?? false),
    schema: p.schema,
    ...(p.description ? { description: p.description } : {}),
  };
}

function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: list.map((c) => `\`${c}\``).join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorEnvelope' },
              { properties: { error: { enum: list } } },
            ],
          },
        },
      },
    };
  }
  return out;
}

/** A route's request body schema: a reference to its DTO's generated component, or its own schema. */
function bodySchemaOf(body: RouteBody): JsonSchema {
  return body.dto ? { $ref: `#/components/schemas/${componentNameOf(body.dto)}` } : body.schema;
}

/**
 * The `in: query` parameters of a route with a query DTO, generated from it ({@link classSchema}),
 * less those the route table lists itself (properties the DTO lets through unchecked).
 * @throws when the route table lists a query parameter the DTO checks: it would be described twice.
 */
function queryParameters(route: GatewayRoute): Record<string, unknown>[] {
  if (!route.query) return [];
  const schema = classSchema(route.query) as {
    properties: Record<string, Record<string, unknown>>;
    required?: readonly string[];
  };
  const listed = new Set((route.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
  const out: Record<string, unknown>[] = [];
  for (const [name, { description, ...property }] of Object.entries(schema.properties)) {
    if (listed.has(name)) {
      if (Object.keys(property).length > 0)
        throw new Error(
          `${route.operationId}: query parameter ${name} is checked by ${route.query.name}; the route table must not list it too`,
        );
      continue;
    }
    out.push({
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      schema: property,
      ...(typeof description === 'string' ? { description } : {}),
    });
  }
  return out;
}

/** The generated schemas of the DTO bodies `routes` take, by component name. */
export function requestBodySchemas(routes: readonly GatewayRoute[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const { body } of routes) {
    if (!body?.dto) continue;
    const name = componentNameOf(body.dto);
    if (name in out) continue;
    out[name] = classSchema(body.dto);
  }
  return out;
}

/** The v2 `Idempotency-Key` grammar (v2 idempotency.md §Layer 1), as the gateway checks it under major 2. */
export const V2_IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9._~-]{22,128}$';

/** The `Idempotency-Key` header parameter: v1's (`≤ 255` visible ASCII) or v2's grammar and floor. */
function idempotencyKeyParameter(major: 1 | 2): Record<string, unknown> {
  if (major === 1) {
    return {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      description:
        'Retry-safe key (idempotency.md): a retry within 24 h gets the first answer with `openwop-Idempotent-Replay: true`.',
    };
  }
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: V2_IDEMPOTENCY_KEY_PATTERN, minLength: 22, maxLength: 128 },
    description:
      'Retry-safe key (v2 idempotency.md §Layer 1): 22 to 128 URL-safe characters carrying at least 128 bits of entropy (a UUIDv4 does); otherwise `400 idempotency_key_invalid`. A retry within 24 h gets the first answer with `openwop-Idempotent-Replay: true`.',
  };
}

function operationObject(route: GatewayRoute, major: 1 | 2): Record<string, unknown> {
  const keyed = route.scope !== undefined;
  // v1 documents the header on POST; under major 2 the gateway reads it on every mutating method.
  const post = major === 2 ? MUTATING_METHODS.has(route.method) : route.method === 'POST';
  const parameters = [...(route.parameters ?? []).map(parameterObject), ...queryParameters(route)];
  if (post) parameters.push(idempotencyKeyParameter(major));
  const codes: ErrorCode[] = [...ALWAYS, ...(route.errors ?? [])];
  if (keyed) codes.push(...KEYED_ERRORS);
  if (route.body) codes.push(...BODY_ERRORS);
  if (post) codes.push(...(major === 2 ? V2_IDEMPOTENCY_ERRORS : IDEMPOTENCY_ERRORS));
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const mediaType = r.mediaType === undefined ? 'application/json' : r.mediaType;
    responses[status] = {
      description: r.description,
      ...(mediaType !== null
        ? {
            content: {
              [mediaType]: { schema: r.schema ?? {} },
              ...(r.alternate ? { [r.alternate.mediaType]: { schema: r.alternate.schema } } : {}),
            },
          }
        : {}),
      ...(post
        ? {
            headers: {
              'openwop-Idempotent-Replay': {
                description: '`true` when this is a stored answer replayed.',
                schema: { type: 'boolean' },
              },
            },
          }
        : {}),
    };
  }
  Object.assign(responses, errorResponses(codes));
  const bodySchema = route.body ? bodySchemaOf(route.body) : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.scope
      ? {
          description: `Requires scope: ${route.scope
            .split(' ')
            .map((s) => `\`${s}\``)
            .join(' and ')}.`,
        }
      : {}),
    security: route.scope !== undefined ? [{ [API_KEY_SCHEME]: route.scope.split(' ') }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required,
            content: Object.fromEntries(
              (route.body.mediaTypes ?? ['application/json']).map((m) => [m, { schema: bodySchema }]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/**
 * This host's OpenAPI 3.1 document, built from {@link GATEWAY_ROUTES} — the one table discovery's
 * `endpoints` come from too, and that the route-table test holds equal to the routes the gateway
 * really serves. Security is an opaque API key sent as a bearer token (auth.md), not a JWT.
 */
export function buildOpenApiDocument(
  routes: readonly GatewayRoute[] = GATEWAY_ROUTES,
  major: 1 | 2 = 1,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, major);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'OpenWOP host',
      version: IMPLEMENTATION.version,
      summary: 'OpenWOP v1 REST + SSE surface of this host.',
      description: `Every route this gateway serves. Request bodies are JSON (at most ${MAX_REQUEST_BODY_BYTES} bytes); every error is the spec's error envelope. The spec's own document: api/openapi.yaml of openwop/openwop.`,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [
      { name: 'discovery' },
      { name: 'health' },
      { name: 'runs' },
      { name: 'interrupts' },
      { name: 'conversations' },
      { name: 'artifacts' },
      { name: 'workflows' },
      { name: 'webhooks' },
      { name: 'audit' },
      { name: 'operations' },
    ],
    security: [{ [API_KEY_SCHEME]: [] }],
    paths,
    components: {
      securitySchemes: {
        [API_KEY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An opaque API key (`Authorization: Bearer <key>`) carrying scopes and a tenant (auth.md). Not a JWT.',
        },
      },
      schemas: { ...componentSchemas(), ...requestBodySchemas(routes) },
    },
  };
}
