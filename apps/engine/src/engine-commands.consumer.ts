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
  ENGINE_COMMAND_DATA,
  SchemaValidationError,
  validationRefusal,
  Topics,
  type CommandReply,
  type EngineCommand,
} from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { decideOnce, type OutboxRelay } from '@openwop/platform-db';
import { BUS, DATA_SOURCE, OUTBOX_RELAY } from '@openwop/platform-nest';
import { assertNever } from '@openwop/kernel';
import { AgentTurnHandler } from './agent-turn/agent-turn.handler';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { RecordConversationHandler } from './converse/record-conversation.handler';
import { ForkRunHandler } from './fork-run/fork-run.handler';
import { GetWorkflowHandler } from './get-workflow/get-workflow.handler';
import { RegisterWorkflowHandler } from './register-workflow/register-workflow.handler';
import { ResumeRunHandler } from './resume-run/resume-run.handler';
import { StartRunHandler } from './start-run/start-run.handler';

/**
 * Serves the engine's command topic. Each command is handled once (dedupe by envelope id inside the
 * same transaction as its effects); a redelivered command gets the stored reply. Transient failures
 * throw, so the bus retries and, past its bound, dead-letters.
 */
@Injectable()
export class EngineCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EngineCommandsConsumer.name);
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    private readonly startRun: StartRunHandler,
    private readonly resumeRun: ResumeRunHandler,
    private readonly cancelRun: CancelRunHandler,
    private readonly registerWorkflow: RegisterWorkflowHandler,
    private readonly getWorkflow: GetWorkflowHandler,
    private readonly forkRun: ForkRunHandler,
    private readonly recordConversation: RecordConversationHandler,
    private readonly agentTurn: AgentTurnHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.serve({
      group: ConsumerGroups.engine,
      topic: Topics.engineCommands,
      // run.resume and run.cancel arrive from the interrupt service's outbox, not only as requests:
      // a brand-new group must not start at the end and skip them.
      fromBeginning: true,
      handler: (m) => this.handle(m),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(message: IncomingMessage): Promise<CommandReply> {
    let command: EngineCommand;
    try {
      command = assertCommand<EngineCommand>(message.value, ENGINE_COMMAND_DATA);
    } catch (e) {
      if (!(e instanceof SchemaValidationError)) throw e;
      this.logger.warn(`refused malformed command on ${message.topic}: ${e.message}`);
      return validationRefusal(e);
    }
    // A read changes nothing: it needs neither the dedupe claim nor a stored reply.
    if (command.type === 'workflow.get') return this.getWorkflow.handle(this.ds.manager, command);
    // An agent turn streams across several transactions and decides its submission once itself.
    if (command.type === 'agent.turn') {
      const turn = await this.agentTurn.handle(command);
      void this.relay.kick();
      return turn;
    }
    const reply = await decideOnce(
      this.ds,
      ConsumerGroups.engine,
      command.id,
      (manager) => this.dispatch(manager, command),
      this.relay,
    );
    return reply;
  }

  private dispatch(manager: EntityManager, command: EngineCommand): Promise<CommandReply> {
    switch (command.type) {
      case 'run.start':
        return this.startRun.handle(manager, command);
      case 'run.resume':
        return this.resumeRun.handle(manager, command);
      case 'run.cancel':
        return this.cancelRun.handle(manager, command);
      case 'workflow.register':
        return this.registerWorkflow.handle(manager, command);
      case 'workflow.get':
        return this.getWorkflow.handle(manager, command);
      case 'run.fork':
        return this.forkRun.handle(manager, command);
      case 'run.converse':
        return this.recordConversation.handle(manager, command);
      case 'agent.turn':
        throw new Error('agent.turn is handled outside a single transaction');
      default:
        return assertNever(command, 'engine command');
    }
  }
}
