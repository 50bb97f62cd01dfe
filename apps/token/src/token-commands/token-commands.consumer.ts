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
import { MintTokensHandler } from '../mint-tokens/mint-tokens.handler';
import { AuthorizeTokenHandler } from './authorize-token.handler';
import { InspectTokenHandler } from './inspect-token.handler';
import { ResolveByTokenHandler } from './resolve-by-token.handler';

/**
 * The consumer group of the token command topic. (`ConsumerGroups.token` was the run-event
 * consumer's group until ADR 0007's revision; the token service follows no topic but this one.)
 */
export const TOKEN_COMMANDS_GROUP = `${ConsumerGroups.token}-commands`;

/**
 * Serves the token command topic (request/reply from the gateway: `token.mint` for a run snapshot,
 * `token.inspect` / `token.authorize` for `/v1/interrupts/{token}`, and `token.resolve` of a previous
 * release's gateway) through the {@link CommandSeam}. No command decides here (they read; resolve
 * forwards to the interrupt service, which decides once), so all take the seam's `run` route. A refusal is the
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
    authorize: AuthorizeTokenHandler,
    resolve: ResolveByTokenHandler,
    mint: MintTokensHandler,
  ) {
    this.seam = new CommandSeam<TokenCommand>({
      consumer: TOKEN_COMMANDS_GROUP,
      parse: (value) => assertCommand<TokenCommand>(value, TOKEN_COMMAND_DATA),
      warn: (line) => this.logger.warn(line),
      routes: {
        'token.inspect': {
          run: (c) => this.logged(c, async () => ({ ok: true, data: await inspect.handle(c) })),
        },
        'token.authorize': {
          run: (c) => this.logged(c, async () => ({ ok: true, data: await authorize.handle(c) })),
        },
        'token.resolve': { run: (c) => this.logged(c, () => resolve.handle(c)) },
        // Names an interrupt, carries no token: nothing to log per snapshot read.
        'token.mint': { run: async (c) => ({ ok: true, data: await mint.handle(c) }) },
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
  private async logged(
    command: Exclude<TokenCommand, { type: 'token.mint' }>,
    work: () => Promise<CommandReply>,
  ): Promise<CommandReply> {
    // For the log only: the first 8 characters of a token are the same for every token, so the
    // line also names the interrupt the (still unverified) payload claims.
    const claimed = peekTokenPayload(command.data.token)?.interruptId;
    const token = `${tokenFingerprint(command.data.token)}${claimed !== undefined ? ` naming ${JSON.stringify(claimed)}` : ''}`;
    try {
      const reply = await work();
      this.logger.log(`${command.type} with token ${token}: ${reply.ok ? 'ok' : reply.error.code}`);
      return reply;
    } catch (e) {
      if (e instanceof DomainError)
        this.logger.log(`${command.type} with token ${token}: refused (${e.code})`);
      throw e;
    }
  }
}
