import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  assertCommand,
  ConsumerGroups,
  failRunCommandFor,
  Headers,
  INTERRUPT_COMMAND_DATA,
  SchemaValidationError,
  Topics,
  type CommandReply,
  type InterruptCommand,
  type OpenInterruptCommand,
  versionedCommand,
} from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import {
  CommandSeam,
  ReadAhead,
  storedReply,
  type DecidedThrough,
  type OutboxRelay,
  type UnappliedNotice,
} from '@openwop/platform-db';
import { BUS, DATA_SOURCE, DECIDED_THROUGH, OUTBOX_RELAY } from '@openwop/platform-nest';
import { ClaimInterruptHandler } from './claim-interrupt/claim-interrupt.handler';
import { RUN_INTERRUPTS_READ_AHEAD } from './common/interrupt.repository';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import { OpenInterruptHandler } from './open-interrupt/open-interrupt.handler';
import { ResolveInterruptHandler } from './resolve-interrupt/resolve-interrupt.handler';
import { seedInterruptMetrics } from './common/interrupt.telemetry';

/** Commands at this edge must name who acts: the interrupt's decisions are attributed. */
function parseInterruptCommand(value: unknown): InterruptCommand {
  const command = assertCommand<InterruptCommand>(value, INTERRUPT_COMMAND_DATA);
  if (typeof command.actor.principal !== 'string' || command.actor.principal === '') {
    throw new SchemaValidationError('CommandEnvelope', [
      { path: '/actor/principal', message: 'must be a non-empty string' },
    ]);
  }
  return command;
}

/**
 * Serves the interrupt command topic (the per-run gate of external input) through the
 * {@link CommandSeam}: commands are validated at this edge, then handled once each (dedupe by
 * envelope id in the same transaction as their effects); a redelivery gets the stored reply; a
 * refusal rolls back and writes nothing. The group starts from the beginning when it has no offsets,
 * so `interrupt.open` commands the engine's outbox published before this service first joined are
 * not lost. An `interrupt.open` that is set aside instead of applied would leave its run waiting on
 * an interrupt nobody holds: the engine is told to fail the run (`run.fail`). Every other command
 * leaves the run resolvable when it fails (the interrupt stays as it was) and its requester gets
 * the refusal.
 */
@Injectable()
export class InterruptCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InterruptCommandsConsumer.name);
  private subscription: Subscription | undefined;
  private readonly seam: CommandSeam<InterruptCommand>;
  private readonly unreadAhead: (() => void) | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) ds: DataSource,
    @Inject(OUTBOX_RELAY) relay: OutboxRelay,
    open: OpenInterruptHandler,
    resolve: ResolveInterruptHandler,
    cancel: CancelRunHandler,
    expire: ExpireInterruptHandler,
    claim: ClaimInterruptHandler,
    @Optional() @Inject(DECIDED_THROUGH) decidedThrough: DecidedThrough | null = null,
  ) {
    // One process: a start's first statement reads the run's interrupts for the opens it decides
    // through (ADR 0039, read-ahead.ts).
    this.unreadAhead = decidedThrough ? ReadAhead.register(ds, RUN_INTERRUPTS_READ_AHEAD) : undefined;
    this.seam = new CommandSeam<InterruptCommand>({
      consumer: ConsumerGroups.interrupt,
      parse: parseInterruptCommand,
      ds,
      relay,
      warn: (line) => this.logger.warn(line),
      // One process (ADR 0038): commands to this topic from the process's other decisions are decided in their transaction.
      ...(decidedThrough
        ? { decidedThrough: { registry: decidedThrough, topic: Topics.interruptCommands } }
        : {}),
      routes: {
        'interrupt.open': { decide: (m, c) => open.handle(m, c), unapplied: (c, n) => this.failRun(c, n) },
        'interrupt.resolve': {
          // A replay-only resolve answers the verdict its id got before, and otherwise decides nothing.
          shortcut: async (c) =>
            c.data.replayOnly === true
              ? ((await storedReply(ds, ConsumerGroups.interrupt, c.id)) ?? {
                  ok: false,
                  error: {
                    code: 'interrupt_already_resolved',
                    message: 'No earlier verdict for this command.',
                  },
                })
              : undefined,
          decide: (m, c) => resolve.handle(m, c),
        },
        'run.cancel': { decide: (m, c) => cancel.handle(m, c) },
        'interrupt.expire': { decide: (m, c) => expire.handle(m, c) },
        'interrupt.claim': { decide: (m, c) => claim.handle(m, c) },
        'interrupt.release': { decide: (m, c) => claim.handle(m, c) },
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    seedInterruptMetrics();
    this.subscription = await this.bus.serve({
      group: ConsumerGroups.interrupt,
      topic: Topics.interruptCommands,
      fromBeginning: true,
      handler: (m) => this.handle(m),
      onDeadLetter: (m, notice) => this.seam.unapplied(m, notice),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unreadAhead?.();
    await this.subscription?.stop();
  }

  handle(message: IncomingMessage): Promise<CommandReply> {
    return this.seam.handle(message);
  }

  /** The run of an `interrupt.open` that could not be held would wait forever: the engine fails it. */
  private async failRun(command: OpenInterruptCommand, notice: UnappliedNotice): Promise<void> {
    const { runId } = command.data;
    const fail = failRunCommandFor(command, runId, notice.reason, 'system:interrupt');
    this.logger.warn(
      `interrupt.open ${command.id} of run ${runId} was set aside (${notice.cause}): asking the engine to fail the run`,
    );
    await this.bus.publish(Topics.engineCommands, [
      {
        key: runId,
        value: versionedCommand(fail),
        headers: {
          [Headers.messageId]: fail.id,
          [Headers.messageType]: fail.type,
          [Headers.correlationId]: fail.correlationId,
        },
      },
    ]);
  }
}
