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
  ENGINE_COMMAND_DATA,
  failRunCommandFor,
  Headers,
  Topics,
  type CommandReply,
  type EngineCommand,
  versionedCommand,
} from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import {
  CommandSeam,
  ReadAhead,
  type DecidedThrough,
  type OutboxRelay,
  type UnappliedNotice,
} from '@openwop/platform-db';
import { ENGINE_RUN_READ_AHEAD } from './common/run.store';
import { BUS, DATA_SOURCE, DECIDED_THROUGH, OUTBOX_RELAY } from '@openwop/platform-nest';
import { AgentTurnHandler } from './agent-turn/agent-turn.handler';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { ChildRunChangedHandler } from './child-runs/child-run-changed.handler';
import { RecordConversationHandler } from './converse/record-conversation.handler';
import { RecordEscalationHandler } from './escalate/record-escalation.handler';
import { FailRunHandler } from './fail-run/fail-run.handler';
import { ForkRunHandler } from './fork-run/fork-run.handler';
import { GetWorkflowHandler } from './get-workflow/get-workflow.handler';
import { RegisterWorkflowHandler } from './register-workflow/register-workflow.handler';
import { ResumeRunHandler } from './resume-run/resume-run.handler';
import { StartRunHandler } from './start-run/start-run.handler';
import { FireTimerHandler } from './timers/fire-timer.handler';
import { PauseRunHandler } from './pause-run/pause-run.handler';

/** Refusals that say the run is already settled: failing it on their account would change nothing. */
const SETTLED = new Set(['run_terminal', 'not_found']);

/**
 * Serves the engine's command topic through the {@link CommandSeam}: each command is handled once
 * (dedupe by envelope id inside the same transaction as its effects); a redelivered command gets
 * the stored reply. Transient failures throw, so the bus retries. A command that carries a run
 * forward (`run.resume`, `run.cancel`, `run.converse` from the interrupt service, an `agent.turn`
 * of the previous release) and is set aside instead of applied fails its run (`run.fail`), so it is never left
 * waiting on something that will not come.
 */
@Injectable()
export class EngineCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EngineCommandsConsumer.name);
  private subscription: Subscription | undefined;
  private readonly seam: CommandSeam<EngineCommand>;
  private readonly unreadAhead: (() => void) | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) ds: DataSource,
    @Inject(OUTBOX_RELAY) relay: OutboxRelay,
    startRun: StartRunHandler,
    resumeRun: ResumeRunHandler,
    cancelRun: CancelRunHandler,
    failRun: FailRunHandler,
    registerWorkflow: RegisterWorkflowHandler,
    getWorkflow: GetWorkflowHandler,
    forkRun: ForkRunHandler,
    recordConversation: RecordConversationHandler,
    recordEscalation: RecordEscalationHandler,
    agentTurn: AgentTurnHandler,
    fireTimer: FireTimerHandler,
    pauseRun: PauseRunHandler,
    childRunChanged: ChildRunChangedHandler,
    @Optional() @Inject(DECIDED_THROUGH) decidedThrough: DecidedThrough | null = null,
  ) {
    const failsRun =
      (when: (notice: UnappliedNotice) => boolean) =>
      (command: EngineCommand & { data: { runId: string } }, notice: UnappliedNotice) =>
        when(notice) ? this.failRun(command, notice) : Promise.resolve();
    // One process: the interrupt service's decision of a resolve reads the run's engine row for
    // the resume it decides through (ADR 0039, read-ahead.ts).
    this.unreadAhead = decidedThrough ? ReadAhead.register(ds, ENGINE_RUN_READ_AHEAD) : undefined;
    const always = failsRun((n) => !(n.cause === 'refused' && n.code !== undefined && SETTLED.has(n.code)));
    this.seam = new CommandSeam<EngineCommand>({
      consumer: ConsumerGroups.engine,
      parse: (value) => assertCommand<EngineCommand>(value, ENGINE_COMMAND_DATA),
      ds,
      relay,
      warn: (line) => this.logger.warn(line),
      // One process (ADR 0038): commands to this topic from the process's other decisions are decided in their transaction.
      ...(decidedThrough
        ? { decidedThrough: { registry: decidedThrough, topic: Topics.engineCommands } }
        : {}),
      routes: {
        'run.start': { decide: (m, c) => startRun.handle(m, c) },
        'run.resume': { decide: (m, c) => resumeRun.handle(m, c), unapplied: always },
        'run.cancel': { decide: (m, c) => cancelRun.handle(m, c), unapplied: always },
        'run.fail': { decide: (m, c) => failRun.handle(m, c) },
        'run.converse': { decide: (m, c) => recordConversation.handle(m, c), unapplied: always },
        // An escalation step is history of a wait, not the run's way forward: a lost one fails nothing.
        'run.escalate': { decide: (m, c) => recordEscalation.handle(m, c) },
        'run.fork': { decide: (m, c) => forkRun.handle(m, c) },
        'run.timer': { decide: (m, c) => fireTimer.handle(m, c), unapplied: always },
        'run.pause': { decide: (m, c) => pauseRun.pause(m, c) },
        'run.unpause': { decide: (m, c) => pauseRun.unpause(m, c) },
        // A child's status reaching its parent carries the parent forward (its node goes on when the child ends).
        'run.child': { decide: (m, c) => childRunChanged.handle(m, c), unapplied: always },
        'workflow.register': { decide: (m, c) => registerWorkflow.handle(m, c) },
        // A read changes nothing: it needs neither the dedupe claim nor a stored reply.
        'workflow.get': { run: (c) => getWorkflow.handle(ds.manager, c) },
        // Sent only by an engine of the previous release: the turn is owed to the turn workers
        // (ADR 0037), which stream it off this consumer. A lost one would leave its run waiting.
        'agent.turn': {
          decide: (m, c) => agentTurn.owe(m, c),
          unapplied: failsRun((n) => n.cause === 'exhausted'),
        },
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.serve({
      group: ConsumerGroups.engine,
      topic: Topics.engineCommands,
      // run.resume and run.cancel arrive from the interrupt service's outbox, not only as requests:
      // a brand-new group must not start at the end and skip them.
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

  /** Sends the engine itself `run.fail` for the run `command` could not carry forward. */
  private async failRun(
    command: EngineCommand & { data: { runId: string } },
    notice: UnappliedNotice,
  ): Promise<void> {
    const fail = failRunCommandFor(command, command.data.runId, notice.reason, 'system:engine');
    this.logger.warn(
      `${command.type} ${command.id} of run ${command.data.runId} was set aside (${notice.cause}): failing the run`,
    );
    await this.bus.publish(Topics.engineCommands, [
      {
        key: command.data.runId,
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
