import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  Headers,
  versionedCommand,
  type CommandEnvelope,
  type CommandReply,
  type ProjectedRunMark,
  type ResolveInterruptCommand,
} from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { BUS, RequestTimeoutError, type Bus } from '@openwop/platform-bus';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { ApiError } from '../common/api.error';
import { CredentialResumeCheck } from '../oauth-connect/credential-resume.check';

/**
 * Sends a command to its owning service over request/reply and returns the verdict's data.
 * A refusal becomes a {@link DomainError} with the service's code (mapped once, by the error
 * table); no answer in time becomes `503 unavailable`, saying the command may still take effect.
 */
@Injectable()
export class CommandSender {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    /**
     * Attests, on every `interrupt.resolve` any route sends, that a credential resolves for an
     * `authorized` `credential` interrupt (RFC 0199 §C.4, ADR 0044). Absent (a unit test): no
     * attestation, so the interrupt service refuses every such `authorized`.
     */
    @Optional() private readonly credentials?: CredentialResumeCheck,
  ) {}

  /**
   * Builds the envelope for `caller`: fresh id, the caller as actor (with its key's id, never the
   * key, its configured groups and roles, and `via: bulk` for a bulk request's items), correlated by `key`.
   */
  envelope<TType extends string, TData>(
    type: TType,
    key: string,
    data: TData,
    caller: Caller,
  ): CommandEnvelope<TType, TData> {
    return {
      id: randomUUID(),
      type,
      occurredAt: new Date().toISOString(),
      correlationId: key,
      actor: {
        tenant: caller.tenant,
        principal: caller.principal,
        keyId: caller.keyId,
        ...(caller.via !== undefined ? { via: caller.via } : {}),
        // From the key registry only: the caller's groups are never read from a request.
        ...(caller.groups !== undefined && caller.groups.length > 0 ? { groups: [...caller.groups] } : {}),
        ...(caller.roles !== undefined && caller.roles.length > 0 ? { roles: [...caller.roles] } : {}),
      },
      data,
    };
  }

  /**
   * @throws {@link DomainError} with the owning service's code when it refused the command.
   * @throws {@link ApiError} `unavailable` when no verdict arrived within `timeoutMs` (default: the
   * command timeout); its message and details come from `onTimeout` when the caller can name what
   * may still happen.
   */
  async send<TResult>(
    topic: string,
    key: string,
    command: CommandEnvelope,
    onTimeout?: (timeoutMs: number) => { message: string; details: Record<string, unknown> },
    timeoutMs: number = this.config.commandTimeoutMs,
  ): Promise<TResult> {
    return (await this.sendForVerdict<TResult>(topic, key, command, onTimeout, timeoutMs)).data;
  }

  /**
   * As {@link send}, with the whole verdict: its data, and the runs its decision projected in its
   * own transaction (`projected`, one process, ADR 0039).
   */
  async sendForVerdict<TResult>(
    topic: string,
    key: string,
    command: CommandEnvelope,
    onTimeout?: (timeoutMs: number) => { message: string; details: Record<string, unknown> },
    timeoutMs: number = this.config.commandTimeoutMs,
  ): Promise<{ readonly data: TResult; readonly projected: readonly ProjectedRunMark[] }> {
    const outgoing =
      command.type === 'interrupt.resolve'
        ? await this.attested(command as ResolveInterruptCommand)
        : command;
    let reply: CommandReply<TResult>;
    try {
      reply = await this.bus.request<CommandReply<TResult>>(
        topic,
        {
          key,
          value: versionedCommand(outgoing),
          headers: {
            [Headers.correlationId]: command.correlationId,
            [Headers.messageId]: command.id,
            [Headers.messageType]: command.type,
          },
        },
        { timeoutMs },
      );
    } catch (error) {
      if (!(error instanceof RequestTimeoutError)) throw error;
      const said = onTimeout?.(timeoutMs) ?? {
        message: `No verdict for ${command.type} within ${timeoutMs} ms; it may still take effect. Read the resource before retrying.`,
        details: { correlationId: command.correlationId },
      };
      throw new ApiError('unavailable', said.message, said.details, 1);
    }
    if (!reply.ok) throw new DomainError(reply.error.code, reply.error.message, reply.error.details);
    return { data: reply.data, projected: reply.projected ?? [] };
  }

  /** The resolve with the credential check's attestation, or without any when there is no check. */
  private async attested(command: ResolveInterruptCommand): Promise<ResolveInterruptCommand> {
    if (this.credentials) return this.credentials.attest(command);
    const { credentialCheckedFor: _unchecked, ...data } = command.data;
    return { ...command, data };
  }
}
