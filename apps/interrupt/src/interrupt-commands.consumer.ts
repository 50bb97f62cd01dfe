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
  validationRefusal,
  type CommandReply,
  type InterruptCommand,
} from '@openwop/contracts';
import { assertNever } from '@openwop/kernel';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { decideOnce, storedReply, type OutboxRelay } from '@openwop/platform-db';
import { BUS, DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import { OpenInterruptHandler } from './open-interrupt/open-interrupt.handler';
import { ResolveInterruptHandler } from './resolve-interrupt/resolve-interrupt.handler';
import { seedInterruptMetrics } from './common/interrupt.telemetry';

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
    seedInterruptMetrics();
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
      return validationRefusal(e);
    }
    if (command.type === 'interrupt.resolve' && command.data.replayOnly === true) {
      const first = await storedReply(this.ds, ConsumerGroups.interrupt, command.id);
      return first ?? { ok: false, error: { code: 'interrupt_already_resolved', message: 'No earlier verdict for this command.' } };
    }
    const reply = await decideOnce(
      this.ds,
      ConsumerGroups.interrupt,
      command.id,
      (manager) => this.dispatch(manager, command),
      this.relay,
    );
    return reply;
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
