import type { InterruptTokenSet } from '@openwop/contracts';

/** The scope every resolve route requires, whatever the interrupt's kind (`resolve-interrupt.controller.ts`). */
export const RESOLVE_SCOPE = 'approvals:respond';

/**
 * What a caller may be shown of an interrupt's signed tokens: `resolve` — the resolving token and
 * its callback URL, plus the inspect-only ones; `inspect` — the inspect-only token and link alone.
 */
export type TokenAuthority = 'resolve' | 'inspect';

/** The authenticated reader of a run, as far as token visibility is concerned. */
export interface TokenReader {
  readonly tenant: string;
  readonly scopes: ReadonlySet<string>;
}

/**
 * The one rule of who receives a resolving token: a principal that could resolve the interrupt
 * through the API itself, i.e. holding {@link RESOLVE_SCOPE} in the run's tenant (exactly what the
 * resolve routes check). A token is a bearer credential: handing it to a reader without that scope
 * would lend it authority it does not hold.
 */
export function tokenAuthorityOf(reader: TokenReader, runTenant: string): TokenAuthority {
  return reader.tenant === runTenant && reader.scopes.has(RESOLVE_SCOPE) ? 'resolve' : 'inspect';
}

/** What {@link withInterruptTokens} needs besides the snapshot and the tokens. */
export interface TokenPresentation {
  readonly authority: TokenAuthority;
  /** The gateway's public base URL, for the links. */
  readonly publicUrl: string;
  /** The reading instant (ms since the epoch). */
  readonly now: number;
}

/**
 * The run snapshot with the signed-token fields on its pending interrupt (RFC 0093):
 * - a reader with `resolve` authority gets `interruptToken` (the resolve token), `callbackUrl`
 *   (`{publicUrl}/v1/interrupts/{resolve token}`), `inspectToken`, `inspectUrl` and `tokenExpiresAt`;
 * - any other reader gets `inspectToken`, `inspectUrl` and `tokenExpiresAt` only;
 * - once the tokens expired (`tokenExpiresAt <= now`) nobody gets a token: the interrupt shows
 *   `tokenExpired: true` and `tokenExpiresAt`. An interrupt's tokens depend only on its
 *   `interrupt.requested` event (and the signing key), so every read is shown the same ones, with
 *   the same expiry, never a fresh lifetime; a pending interrupt whose tokens expired is still
 *   answered through the API (`POST /v1/runs/{runId}/interrupts/{nodeId}`).
 */
export function withInterruptTokens(
  snapshot: Record<string, unknown>,
  tokens: InterruptTokenSet | undefined,
  presentation: TokenPresentation,
): Record<string, unknown> {
  const interrupt = snapshot.interrupt;
  if (!tokens || typeof interrupt !== 'object' || interrupt === null) return snapshot;
  if (Date.parse(tokens.expiresAt) <= presentation.now) {
    return { ...snapshot, interrupt: { ...interrupt, tokenExpired: true, tokenExpiresAt: tokens.expiresAt } };
  }
  const base = presentation.publicUrl.replace(/\/+$/, '');
  const inspect = {
    inspectToken: tokens.inspectToken,
    inspectUrl: `${base}/v1/interrupts/${tokens.inspectToken}`,
    tokenExpiresAt: tokens.expiresAt,
  };
  const resolve =
    presentation.authority === 'resolve'
      ? { interruptToken: tokens.resolveToken, callbackUrl: `${base}/v1/interrupts/${tokens.resolveToken}` }
      : {};
  return { ...snapshot, interrupt: { ...interrupt, ...resolve, ...inspect } };
}

/** The pending interrupt id of a snapshot, if it shows one. */
export function pendingInterruptIdOf(snapshot: Record<string, unknown>): string | undefined {
  const id = (snapshot.interrupt as { interruptId?: unknown } | undefined)?.interruptId;
  return typeof id === 'string' ? id : undefined;
}
