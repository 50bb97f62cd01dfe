import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import {
  assertCommand,
  ConsumerGroups,
  INTERRUPT_COMMAND_DATA,
  SchemaValidationError,
  Topics,
  type CommandReply,
  type InterruptCommand,
} from '@openwop/contracts';
import { assertNever } from '@openwop/kernel';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { claimMessage, storeReply, type OutboxRelay } from '@openwop/platform-db';
import { BUS, DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { Refusal, refusal } from './common/command-reply.util';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import { OpenInterruptHandler } from './open-interrupt/open-interrupt.handler';
import { ResolveInterruptHandler } from './resolve-interrupt/resolve-interrupt.handler';

/**
 * Serves the interrupt command topic: the per-run gate of external input. Commands are validated
 * at this edge, then handled once each (dedupe by envelope id in the same transaction as their
 * effects); a redelivery gets the stored reply; a refusal rolls back and writes nothing. The group
 * starts from the beginning when it has no offsets, so `interrupt.open` commands the engine's
 * outbox published before this service first joined are not lost.
 */
@Injectable()
export class InterruptCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InterruptCommandsConsumer.name);
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    private readonly open: OpenInterruptHandler,
    private readonly resolve: ResolveInterruptHandler,
    private readonly cancel: CancelRunHandler,
    private readonly expire: ExpireInterruptHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.serve({
      group: ConsumerGroups.interrupt,
      topic: Topics.interruptCommands,
      fromBeginning: true,
      handler: (m) => this.handle(m),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(message: IncomingMessage): Promise<CommandReply> {
    let command: InterruptCommand;
    try {
      command = assertCommand<InterruptCommand>(message.value, INTERRUPT_COMMAND_DATA);
      if (typeof command.actor.principal !== 'string' || command.actor.principal === '') {
        throw new SchemaValidationError('CommandEnvelope', [
          { path: '/actor/principal', message: 'must be a non-empty string' },
        ]);
      }
    } catch (e) {
      if (!(e instanceof SchemaValidationError)) throw e;
      this.logger.warn(`refused malformed command on ${message.topic}: ${e.message}`);
      return refusal('validation_error', e.message, { errors: e.violations });
    }
    try {
      const reply = await this.ds.transaction(async (manager) => {
        const claim = await claimMessage(manager, ConsumerGroups.interrupt, command.id);
        if (!claim.fresh) return claim.reply as CommandReply;
        const result = await this.dispatch(manager, command);
        if (!result.ok) throw new Refusal(result);
        await storeReply(manager, ConsumerGroups.interrupt, command.id, result);
        return result;
      });
      void this.relay.kick();
      return reply;
    } catch (e) {
      if (e instanceof Refusal) return e.reply;
      throw e;
    }
  }

  private dispatch(manager: EntityManager, command: InterruptCommand): Promise<CommandReply> {
    switch (command.type) {
      case 'interrupt.open':
        return this.open.handle(manager, command);
      case 'interrupt.resolve':
        return this.resolve.handle(manager, command);
      case 'run.cancel':
        return this.cancel.handle(manager, command);
      case 'interrupt.expire':
        return this.expire.handle(manager, command);
      default:
        return assertNever(command, 'interrupt command');
    }
  }
}
