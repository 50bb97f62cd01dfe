import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  assertCommand,
  ConsumerGroups,
  refusal,
  SchemaValidationError,
  TOKEN_COMMAND_DATA,
  Topics,
  validationRefusal,
  type CommandReply,
  type TokenCommand,
} from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { BUS } from '@openwop/platform-nest';
import { peekTokenPayload, tokenFingerprint } from '@openwop/token-domain';
import { InspectTokenHandler } from './inspect-token.handler';
import { ResolveByTokenHandler } from './resolve-by-token.handler';

/** The consumer group of the token command topic (the run-events group is `ConsumerGroups.token`). */
export const TOKEN_COMMANDS_GROUP = `${ConsumerGroups.token}-commands`;

/**
 * Serves the token command topic (request/reply from the gateway's `/v1/interrupts/{token}`).
 * A refusal is the reply; a transient failure throws, so the bus retries. Logs name a token by its
 * first 8 characters and the interrupt it claims, never whole.
 */
@Injectable()
export class TokenCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TokenCommands');
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    private readonly inspect: InspectTokenHandler,
    private readonly resolve: ResolveByTokenHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.serve({
      group: TOKEN_COMMANDS_GROUP,
      topic: Topics.tokenCommands,
      handler: (m) => this.handle(m),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(message: IncomingMessage): Promise<CommandReply> {
    let command: TokenCommand;
    try {
      command = assertCommand<TokenCommand>(message.value, TOKEN_COMMAND_DATA);
    } catch (e) {
      if (!(e instanceof SchemaValidationError)) throw e;
      this.logger.warn(`refused malformed command on ${message.topic}: ${e.message}`);
      return validationRefusal(e);
    }
    // For the log only: the first 8 characters of a token are the same for every token, so the
    // line also names the interrupt the (still unverified) payload claims.
    const claimed = peekTokenPayload(command.data.token)?.interruptId;
    const token = `${tokenFingerprint(command.data.token)}${claimed !== undefined ? ` naming ${JSON.stringify(claimed)}` : ''}`;
    try {
      const reply: CommandReply =
        command.type === 'token.inspect'
          ? { ok: true, data: await this.inspect.handle(command) }
          : await this.resolve.handle(command);
      this.logger.log(`${command.type} with token ${token}: ${reply.ok ? 'ok' : reply.error.code}`);
      return reply;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      this.logger.log(`${command.type} with token ${token}: refused (${e.code})`);
      return refusal(e.code, e.message, e.details);
    }
  }
}
