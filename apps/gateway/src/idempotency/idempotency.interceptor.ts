import { createHash, randomUUID } from 'node:crypto';
import {
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@openwop/kernel';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  settleIdempotencyKey,
  type IdempotencyScope,
  type SettledState,
  type StoredResponse,
} from '@openwop/platform-db';
import { DATA_SOURCE, HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { Request, Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { DataSource } from 'typeorm';
import type { AuthenticatedRequest } from '../auth/caller.decorator';
import { ApiError } from '../common/api.error';
import { toErrorResponse } from '../common/error-response.mapper';
import { requestMajorOf } from '../common/protocol-negotiation.middleware';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAY_HEADER,
  isRetryableStatus,
  isUnrecordedStatus,
  keyDigest,
  MUTATING_METHODS,
  parseIdempotencyKey,
  parseIdempotencyKeyV2,
  requestDigest,
  withoutShownOnce,
} from './idempotency-key';
import { SHOWN_ONCE_FIELDS } from './shown-once.decorator';

/** Response headers that belong to one delivery, not to the answer: never stored or replayed. */
const UNREPLAYED_HEADERS: ReadonlySet<string> = new Set([
  'set-cookie',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'traceparent',
  'tracestate',
  'x-powered-by',
  IDEMPOTENT_REPLAY_HEADER.toLowerCase(),
]);

/** How a route answers success: its status, and the body fields it shows once (`@ShownOnce`). */
interface SuccessShape {
  readonly status: number;
  readonly shownOnce: readonly string[];
}

/** First and longest pause between two looks at a record another request is executing. */
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 250;

/**
 * Layer-1 idempotency (idempotency.md, RFC 0093 §C, RFC 0150 §A) for every mutating route of the
 * gateway, in one place: a request with an `Idempotency-Key` claims a record in Postgres (shared by
 * every gateway instance) keyed by the authenticated tenant, the routed operation and the key's
 * digest, then executes once:
 * - the same key and request again gets the stored final answer (`2xx` or a non-retryable `4xx`)
 *   with `openwop-Idempotent-Replay: true`; the first answer carries `false`;
 * - the same key with another body or path gets `409 idempotency_key_mismatch`, no stored body;
 * - while the first is still executing, a duplicate waits for its answer, and past the wait gets
 *   `409 idempotency_in_flight` with `Retry-After`;
 * - fields a route shows once (`@ShownOnce`, e.g. a webhook's generated secret) are never
 *   written to the record: a replay answers the same status and body without them;
 * - retryable-class outcomes (`429`, `5xx`) are recorded, never replayed: a retry executes again;
 *   a malformed request (`400`) leaves no record at all; a malformed key is `400` before anything.
 * Routes served without an API key (signed-token resolution) are scoped by their path parameters
 * instead of a tenant, so only a holder of the same token reaches the record.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Gateway');
  /** How long a claim is held before another request may take it over (a crashed owner). */
  private readonly leaseMs: number;
  /** How long a duplicate waits for the first request's answer before `409 idempotency_in_flight`. */
  private readonly waitMs: number;

  constructor(
    private readonly reflector: Reflector,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(HOST_CONFIG) config: HostConfig,
  ) {
    this.waitMs = config.commandTimeoutMs + 10_000;
    this.leaseMs = 2 * config.commandTimeoutMs + 30_000;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!MUTATING_METHODS.has(req.method)) return next.handle();
    const v2 = requestMajorOf(req) === 2;
    const raw = req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    const parsed = v2 ? parseIdempotencyKeyV2(raw) : parseIdempotencyKey(raw);
    if (parsed.kind === 'absent') return next.handle();
    if (parsed.kind === 'invalid') {
      const message = `The ${IDEMPOTENCY_KEY_HEADER} header is not a valid key.`;
      // v2 names its own code (idempotency.md §Layer 1); v1 keeps validation_error (ADR 0041).
      if (v2) throw new ApiError('idempotency_key_invalid', message, { errors: [parsed.error] });
      throw ApiError.validation(message, [parsed.error]);
    }
    const res = context.switchToHttp().getResponse<Response>();
    const endpoint = `${req.method} ${routePath(req)}`;
    const params = { ...(req.params as Record<string, string>) };
    const scope: IdempotencyScope = {
      tenant:
        req.caller?.tenant ??
        `anonymous:${createHash('sha256').update(JSON.stringify(params)).digest('hex')}`,
      endpoint,
      keyDigest: keyDigest(parsed.key),
    };
    const digest = requestDigest({ endpoint, params, query: req.query, body: req.body as unknown });
    const successStatus =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (req.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const shownOnce =
      this.reflector.get<readonly string[] | undefined>(SHOWN_ONCE_FIELDS, context.getHandler()) ?? [];
    return from(this.execute(scope, digest, { status: successStatus, shownOnce }, req, res, next));
  }

  private async execute(
    scope: IdempotencyScope,
    digest: string,
    success: SuccessShape,
    req: Request,
    res: Response,
    next: CallHandler,
  ): Promise<unknown> {
    const owner = randomUUID();
    const deadline = Date.now() + this.waitMs;
    for (let pause = POLL_FIRST_MS; ; pause = Math.min(pause * 2, POLL_MAX_MS)) {
      const claim = await claimIdempotencyKey(this.dataSource, scope, digest, owner, this.leaseMs);
      switch (claim.kind) {
        case 'claimed':
          return this.executeOnce(scope, owner, success, req, res, next);
        case 'replay':
          return replay(claim.response, res);
        case 'mismatch':
          throw new ApiError(
            'idempotency_key_mismatch',
            `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request; use a new key for a new operation.`,
          );
        case 'in-flight':
          if (Date.now() + pause > deadline) {
            const retryAfter = 1;
            throw new ApiError(
              'idempotency_in_flight',
              `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry shortly.`,
              { retryAfter },
              retryAfter,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  private async executeOnce(
    scope: IdempotencyScope,
    owner: string,
    success: SuccessShape,
    req: Request,
    res: Response,
    next: CallHandler,
  ): Promise<unknown> {
    res.setHeader(IDEMPOTENT_REPLAY_HEADER, 'false');
    let body: unknown;
    try {
      body = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (error) {
      const mapped = toErrorResponse(error, { method: req.method, path: req.path });
      if (isUnrecordedStatus(mapped.status)) {
        await this.quietly('release', () => releaseIdempotencyKey(this.dataSource, scope, owner));
      } else {
        const state: SettledState = isRetryableStatus(mapped.status)
          ? 'retryable-failure'
          : 'terminal-failure';
        await this.settle(scope, owner, state, {
          status: mapped.status,
          headers: mapped.headers,
          body: JSON.stringify(mapped.body),
        });
      }
      throw error;
    }
    // What the route shows once (a generated secret) is never written to the record.
    const kept = withoutShownOnce(body, success.shownOnce);
    await this.settle(scope, owner, 'completed', {
      status: success.status,
      headers: replayableHeaders(res),
      body: kept === undefined ? '' : JSON.stringify(kept),
    });
    return body;
  }

  private async settle(
    scope: IdempotencyScope,
    owner: string,
    state: SettledState,
    response: StoredResponse,
  ): Promise<void> {
    await this.quietly('record', async () => {
      if (!(await settleIdempotencyKey(this.dataSource, scope, owner, state, response))) {
        this.logger.warn(
          `an Idempotency-Key claim on ${scope.endpoint} outlived its lease; its outcome was not recorded`,
        );
      }
    });
  }

  /**
   * The request's own answer matters more than its record: a failure to write the record is
   * logged and the answer still goes out (the claim then runs out and a retry executes again).
   */
  private async quietly(what: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.error(
        `could not ${what} an Idempotency-Key outcome: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/** The routed path (e.g. `/v1/runs/:runId/cancel`), so spellings of one operation share a keyspace. */
function routePath(req: Request): string {
  const route: unknown = (req as { route?: unknown }).route;
  const path = typeof route === 'object' && route !== null ? (route as { path?: unknown }).path : undefined;
  return typeof path === 'string' ? path : req.path;
}

/** The headers a handler set that belong to the answer (e.g. `Location`). */
function replayableHeaders(res: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || UNREPLAYED_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value : String(value);
  }
  return headers;
}

/**
 * Answers a stored final outcome again. A success goes back through the route (its status is the
 * route's, as the first time); a refusal is rethrown as the same error, so the error filter answers
 * it with the same status and envelope.
 */
function replay(stored: StoredResponse, res: Response): unknown {
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.setHeader(IDEMPOTENT_REPLAY_HEADER, 'true');
  const body: unknown = stored.body === '' ? undefined : JSON.parse(stored.body);
  if (stored.status < 400) return body;
  const envelope = body as { error: string; message: string; details?: Record<string, unknown> };
  throw new DomainError(envelope.error, envelope.message, envelope.details);
}
