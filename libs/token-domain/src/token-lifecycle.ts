import type { InterruptKind, InterruptRecord, RunEventDoc } from '@openwop/contracts';
import type { KeyRing } from './key-ring';
import { signToken, type TokenScheme } from './resolution-token';
import { tokenExpiry } from './token-expiry';

/** The two tokens minted for one interrupt, with what inspection shows of it. */
export interface MintedTokens extends InterruptRecord {
  readonly kid: string;
  readonly expiresAt: string;
  readonly resolveToken: string;
  readonly inspectToken: string;
}

/** What one run event changes in the token store. */
export type TokenChange =
  | { readonly type: 'run-owner'; readonly runId: string; readonly tenant: string }
  | { readonly type: 'mint'; readonly tokens: MintedTokens }
  | {
      readonly type: 'invalidate-interrupt';
      readonly runId: string;
      readonly interruptId: string;
      readonly at: string;
    }
  | { readonly type: 'invalidate-run'; readonly runId: string; readonly at: string };

export interface MintSettings {
  readonly ring: KeyRing;
  /** Lifetime of a token when its interrupt has no shorter `timeoutMs`. */
  readonly defaultTtlMs: number;
}

/**
 * The token scheme of a run's tokens, from its `run.started`: `ow2` for a run created under major
 * 2 (`protocolMajor: 2`, ADR 0041), `v1` for every other run (created on `/v1/runs`, or before
 * the field existed). A run keeps its major for life, so its tokens keep their scheme.
 */
export function tokenSchemeOfRun(runStarted: RunEventDoc | undefined): TokenScheme {
  const major = (runStarted?.payload as { protocolMajor?: unknown } | undefined)?.protocolMajor;
  return major === 2 ? 'ow2' : 'v1';
}

/**
 * The token-store changes a run event implies: the run's owner from `run.started`; a resolve token
 * and an inspect-only token for each `interrupt.requested`, in the run's `scheme`
 * ({@link tokenSchemeOfRun}); invalidation on `interrupt.resolved` (that interrupt) and on
 * `run.completed`/`run.failed`/`run.cancelled` (the whole run). Deterministic for a given ring: the
 * tokens depend only on the events, so a rebuild from the log mints the same ones.
 *
 * @throws Error for an `interrupt.requested` without `interruptId`, `nodeId` or a valid `requestedAt`.
 */
export function tokenChangesFor(
  event: RunEventDoc,
  settings: MintSettings,
  scheme: TokenScheme = 'v1',
): TokenChange[] {
  switch (event.type) {
    case 'run.started': {
      const owner = (event.payload as { owner?: { tenant?: unknown } } | undefined)?.owner;
      return typeof owner?.tenant === 'string'
        ? [{ type: 'run-owner', runId: event.runId, tenant: owner.tenant }]
        : [];
    }
    case 'interrupt.requested':
      return [{ type: 'mint', tokens: mintTokens(event, settings, scheme) }];
    case 'interrupt.resolved': {
      const interruptId = (event.payload as { interruptId?: unknown } | undefined)?.interruptId;
      return typeof interruptId === 'string'
        ? [{ type: 'invalidate-interrupt', runId: event.runId, interruptId, at: event.timestamp }]
        : [];
    }
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
      return [{ type: 'invalidate-run', runId: event.runId, at: event.timestamp }];
    default:
      return [];
  }
}

interface RequestedPayload {
  readonly interruptId?: unknown;
  readonly nodeId?: unknown;
  readonly kind?: unknown;
  readonly key?: unknown;
  readonly data?: unknown;
  readonly resumeSchema?: unknown;
  readonly timeoutMs?: unknown;
  readonly requestedAt?: unknown;
}

function mintTokens(event: RunEventDoc, settings: MintSettings, scheme: TokenScheme): MintedTokens {
  const p = (event.payload ?? {}) as RequestedPayload;
  const nodeId = typeof p.nodeId === 'string' ? p.nodeId : event.nodeId;
  const interruptId = p.interruptId;
  if (typeof interruptId !== 'string' || !interruptId || !nodeId) {
    throw new Error(`interrupt.requested ${event.eventId} names no interruptId or nodeId`);
  }
  const requestedAt = typeof p.requestedAt === 'string' ? p.requestedAt : event.timestamp;
  const timeoutMs = typeof p.timeoutMs === 'number' ? p.timeoutMs : undefined;
  const expiresAt = tokenExpiry(requestedAt, timeoutMs, settings.defaultTtlMs);
  const claims = { runId: event.runId, nodeId, interruptId, expiresAt };
  return {
    interruptId,
    runId: event.runId,
    nodeId,
    kind: p.kind as InterruptKind,
    key: typeof p.key === 'string' ? p.key : interruptId,
    data: p.data ?? null,
    ...(isObject(p.resumeSchema) ? { resumeSchema: p.resumeSchema } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    requestedAt,
    kid: settings.ring.activeKid,
    expiresAt,
    resolveToken: signToken({ ...claims, intent: 'resolve' }, settings.ring, scheme),
    inspectToken: signToken({ ...claims, intent: 'inspect' }, settings.ring, scheme),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One interrupt's tokens as its run's events leave them (ADR 0007, revised: minted on demand). */
export interface InterruptTokenState {
  readonly tokens: MintedTokens;
  /** The run owner's tenant, from `run.started`; `undefined` when that event was not among those read. */
  readonly tenant: string | undefined;
  /** When the interrupt was resolved or its run ended (the first such event after the request), if so. */
  readonly invalidatedAt: string | undefined;
}

/**
 * The tokens of `interruptId` and whether they still hold, folded from its run's events in
 * sequence order: the same {@link tokenChangesFor} the token service once applied to a table as the
 * events arrived, applied on demand to the events themselves, in the scheme the run's `run.started`
 * names (`ow2.` for a major-2 run). Events of other interrupts are skipped (not even signed).
 * `undefined` when the interrupt was never requested.
 *
 * Deterministic for a given ring: the same events give the same tokens, so a re-mint gives the
 * string a previous mint gave (with the same active key).
 *
 * @throws Error for an `interrupt.requested` of `interruptId` without `nodeId` or a valid `requestedAt`.
 */
export function tokenStateOf(
  events: readonly RunEventDoc[],
  interruptId: string,
  settings: MintSettings,
): InterruptTokenState | undefined {
  let tenant: string | undefined;
  let tokens: MintedTokens | undefined;
  let invalidatedAt: string | undefined;
  const scheme = tokenSchemeOfRun(events.find((e) => e.type === 'run.started'));
  for (const event of events) {
    if (event.type === 'interrupt.requested' && interruptIdOf(event) !== interruptId) continue;
    for (const change of tokenChangesFor(event, settings, scheme)) {
      switch (change.type) {
        case 'run-owner':
          tenant ??= change.tenant;
          break;
        case 'mint':
          tokens ??= change.tokens;
          break;
        case 'invalidate-interrupt':
          if (tokens && change.interruptId === interruptId) invalidatedAt ??= change.at;
          break;
        case 'invalidate-run':
          if (tokens) invalidatedAt ??= change.at;
          break;
      }
    }
  }
  return tokens && { tokens, tenant, invalidatedAt };
}

function interruptIdOf(event: RunEventDoc): unknown {
  return (event.payload as { interruptId?: unknown } | undefined)?.interruptId;
}
