import { IsOptional, IsString, Length } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import type { InterruptRecord } from './interrupt';

/** Longest token the token service looks at (the token-domain's own bound is the same). */
const MAX_TOKEN_LENGTH = 4096;

/** `token.inspect`: the gateway's `GET /v1/interrupts/{token}`; the token service verifies it. */
export class InspectTokenData {
  @IsString() @Length(1, MAX_TOKEN_LENGTH) token!: string;
}

/** `token.resolve`: the gateway's `POST /v1/interrupts/{token}`; forwarded as `interrupt.resolve` once verified. */
export class ResolveByTokenData {
  @IsString() @Length(1, MAX_TOKEN_LENGTH) token!: string;
  @IsOptional() resumeValue?: unknown;
}

export type InspectTokenCommand = CommandEnvelope<'token.inspect', InspectTokenData>;
export type ResolveByTokenCommand = CommandEnvelope<'token.resolve', ResolveByTokenData>;

/** Every command the token service serves. */
export type TokenCommand = InspectTokenCommand | ResolveByTokenCommand;

/** Maps each token command type to its data class, for validation at the consumer edge. */
export const TOKEN_COMMAND_DATA = {
  'token.inspect': InspectTokenData,
  'token.resolve': ResolveByTokenData,
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
