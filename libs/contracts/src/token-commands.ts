import { IsOptional, IsString, Length } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import type { InterruptRecord } from './interrupt';

/** Longest token the token service looks at (the token-domain's own bound is the same). */
const MAX_TOKEN_LENGTH = 4096;

/**
 * The scheme prefix of a v2 interrupt resume token, `ow2.<alg>.<kid>.<payload>.<mac>` (identity.md
 * §4, RFC 0170 §E.1). A token without it was issued under v1: the rule is the prefix, never a
 * segment count.
 */
export const OW2_TOKEN_PREFIX = 'ow2.';

/**
 * The `alg` values of `ow2.` tokens this host mints and verifies: the token service refuses any
 * other (`401 interrupt_token_invalid`), and the v2 discovery document advertises exactly these as
 * `interrupt.tokenAlgs` (one list for both).
 */
export const INTERRUPT_TOKEN_ALGS = ['hs256'] as const;

/** The `kid` a token without the `ow2.` prefix (a v1 token) resolves under (identity.md §4). */
export const LEGACY_TOKEN_KID = 'legacy';

/** `token.inspect`: the gateway's `GET /v1/interrupts/{token}`; the token service verifies it. */
export class InspectTokenData {
  @IsString() @Length(1, MAX_TOKEN_LENGTH) token!: string;
}

/**
 * `token.resolve`: verified, then forwarded as `interrupt.resolve` by the token service (a nested
 * request). What a gateway of the release before ADR 0007's revision sends; this release's gateway
 * asks `token.authorize` and sends `interrupt.resolve` itself.
 */
export class ResolveByTokenData {
  @IsString() @Length(1, MAX_TOKEN_LENGTH) token!: string;
  @IsOptional() resumeValue?: unknown;
}

/**
 * `token.authorize`: may this token resolve? The gateway's `POST /v1/interrupts/{token}` asks it,
 * then sends `interrupt.resolve` (`via: token`) as the run's owner itself.
 */
export class AuthorizeTokenData {
  @IsString() @Length(1, MAX_TOKEN_LENGTH) token!: string;
}

/**
 * `token.mint`: the signed tokens of a pending interrupt, for the run snapshot. Minting is
 * deterministic (ADR 0007), so asking twice gives the same tokens.
 */
export class MintTokensData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
}

export type InspectTokenCommand = CommandEnvelope<'token.inspect', InspectTokenData>;
export type ResolveByTokenCommand = CommandEnvelope<'token.resolve', ResolveByTokenData>;
export type AuthorizeTokenCommand = CommandEnvelope<'token.authorize', AuthorizeTokenData>;
export type MintTokensCommand = CommandEnvelope<'token.mint', MintTokensData>;

/** Every command the token service serves. */
export type TokenCommand =
  | InspectTokenCommand
  | ResolveByTokenCommand
  | AuthorizeTokenCommand
  | MintTokensCommand;

/** Maps each token command type to its data class, for validation at the consumer edge. */
export const TOKEN_COMMAND_DATA = {
  'token.inspect': InspectTokenData,
  'token.resolve': ResolveByTokenData,
  'token.authorize': AuthorizeTokenData,
  'token.mint': MintTokensData,
} as const;

/**
 * The actor the gateway puts on token commands: the request carries no credentials, the token is
 * the authority. The token service acts for the interrupt's run owner once the token verified.
 */
export const TOKEN_BEARER_ACTOR = { tenant: '*token*', principal: 'token' } as const;

/** The reply to `token.inspect`: the pending interrupt the token names. */
export interface InspectTokenResult extends InterruptRecord {
  readonly expiresAt: string;
  readonly intent: 'resolve' | 'inspect';
}

/**
 * The reply to `token.authorize`: the token may resolve the interrupt it names, acting for the
 * run's owner `tenant` as principal `token:<kid>`.
 */
export interface AuthorizeTokenResult {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** The run owner's tenant, from its `run.started`; absent when that event is not in the store. */
  readonly tenant?: string;
  readonly kid: string;
  readonly expiresAt: string;
}

/** An interrupt's two signed tokens and their expiry. */
export interface InterruptTokenSet {
  readonly resolveToken: string;
  readonly inspectToken: string;
  readonly expiresAt: string;
}

/**
 * The reply to `token.mint`: the tokens, also when they expired (the snapshot then says so); absent
 * when the interrupt is unknown, answered, or its run ended.
 */
export interface MintTokensResult {
  readonly tokens?: InterruptTokenSet;
}
