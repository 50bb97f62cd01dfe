import { Module } from '@nestjs/common';
import { AgentProviders } from './agent-turn/agent-providers';
import { AgentTurnHandler } from './agent-turn/agent-turn.handler';
import { AGENT_TURN_OPTIONS, AgentTurnWorker, agentTurnOptionsFromEnv } from './agent-turn/agent-turn.worker';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { ChildRunChangedHandler } from './child-runs/child-run-changed.handler';
import { CredentialConnect } from './common/credential-connect';
import { DecisionPace } from './common/decision-pace';
import { RecordConversationHandler } from './converse/record-conversation.handler';
import { RecordEscalationHandler } from './escalate/record-escalation.handler';
import { EngineCommandsConsumer } from './engine-commands.consumer';
import { CLOCK, systemClock } from './engine.di-tokens';
import { FailRunHandler } from './fail-run/fail-run.handler';
import { ForkRunHandler } from './fork-run/fork-run.handler';
import { GetWorkflowHandler } from './get-workflow/get-workflow.handler';
import { RegisterWorkflowHandler } from './register-workflow/register-workflow.handler';
import { ResumeRunHandler } from './resume-run/resume-run.handler';
import { StartRunHandler } from './start-run/start-run.handler';
import { FireTimerHandler } from './timers/fire-timer.handler';
import { RUN_TIMER_OPTIONS, RunTimerService, runTimerOptionsFromEnv } from './timers/run-timer.service';
import { PauseRunHandler } from './pause-run/pause-run.handler';
import { WorkflowRegistry } from './workflow-registry';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';

/** The engine: runs workflow definitions, single writer of the run event log. `WORKFLOWS_DIR` seeds global workflows at boot. */
@Module({
  providers: [
    { provide: CLOCK, useValue: systemClock },
    { provide: WorkflowRegistry, useFactory: () => new WorkflowRegistry(process.env.WORKFLOWS_DIR) },
    DecisionPace,
    CredentialConnect,
    StartRunHandler,
    ResumeRunHandler,
    CancelRunHandler,
    FailRunHandler,
    RegisterWorkflowHandler,
    GetWorkflowHandler,
    ForkRunHandler,
    RecordConversationHandler,
    RecordEscalationHandler,
    AgentProviders,
    AgentTurnHandler,
    {
      provide: AGENT_TURN_OPTIONS,
      useFactory: (config: HostConfig) => agentTurnOptionsFromEnv(process.env, config.mode),
      inject: [HOST_CONFIG],
    },
    AgentTurnWorker,
    FireTimerHandler,
    PauseRunHandler,
    ChildRunChangedHandler,
    {
      provide: RUN_TIMER_OPTIONS,
      useFactory: (config: HostConfig) => runTimerOptionsFromEnv(process.env, config.mode),
      inject: [HOST_CONFIG],
    },
    RunTimerService,
    EngineCommandsConsumer,
  ],
  exports: [WorkflowRegistry],
})
export class EngineModule {}
