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
  TOKEN_COMMAND_DATA,
  Topics,
  type CommandReply,
  type TokenCommand,
} from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { CommandSeam } from '@openwop/platform-db';
import { BUS } from '@openwop/platform-nest';
import { peekTokenPayload, tokenFingerprint } from '@openwop/token-domain';
import { InspectTokenHandler } from './inspect-token.handler';
import { ResolveByTokenHandler } from './resolve-by-token.handler';

/** The consumer group of the token command topic (the run-events group is `ConsumerGroups.token`). */
export const TOKEN_COMMANDS_GROUP = `${ConsumerGroups.token}-commands`;

/**
 * Serves the token command topic (request/reply from the gateway's `/v1/interrupts/{token}`)
 * through the {@link CommandSeam}. Neither command decides here (inspect reads; resolve forwards to
 * the interrupt service, which decides once), so both take the seam's `run` route. A refusal is the
 * reply; a transient failure throws, so the bus retries; a command that cannot be handled is
 * answered `command_not_applied` and dead-lettered by the bus. Logs name a token by its first 8
 * characters and the interrupt it claims, never whole.
 */
@Injectable()
export class TokenCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TokenCommands');
  private subscription: Subscription | undefined;
  private readonly seam: CommandSeam<TokenCommand>;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    inspect: InspectTokenHandler,
    resolve: ResolveByTokenHandler,
  ) {
    this.seam = new CommandSeam<TokenCommand>({
      consumer: TOKEN_COMMANDS_GROUP,
      parse: (value) => assertCommand<TokenCommand>(value, TOKEN_COMMAND_DATA),
      warn: (line) => this.logger.warn(line),
      routes: {
        'token.inspect': { run: (c) => this.logged(c, async () => ({ ok: true, data: await inspect.handle(c) })) },
        'token.resolve': { run: (c) => this.logged(c, () => resolve.handle(c)) },
      },
    });
  }

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

  handle(message: IncomingMessage): Promise<CommandReply> {
    return this.seam.handle(message);
  }

  /** Runs a token command and logs its verdict; a refusal ({@link DomainError}) goes on to the seam. */
  private async logged(command: TokenCommand, work: () => Promise<CommandReply>): Promise<CommandReply> {
    // For the log only: the first 8 characters of a token are the same for every token, so the
    // line also names the interrupt the (still unverified) payload claims.
    const claimed = peekTokenPayload(command.data.token)?.interruptId;
    const token = `${tokenFingerprint(command.data.token)}${claimed !== undefined ? ` naming ${JSON.stringify(claimed)}` : ''}`;
    try {
      const reply = await work();
      this.logger.log(`${command.type} with token ${token}: ${reply.ok ? 'ok' : reply.error.code}`);
      return reply;
    } catch (e) {
      if (e instanceof DomainError) this.logger.log(`${command.type} with token ${token}: refused (${e.code})`);
      throw e;
    }
  }
}
