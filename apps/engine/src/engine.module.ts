import { Module } from '@nestjs/common';
import { EngineCommandsConsumer } from './engine-commands.consumer';
import { StartRunHandler } from './start-run/start-run.handler';
import { WorkflowRegistry } from './workflow-registry';

/** The engine: runs workflow definitions, single writer of the run event log. */
@Module({ providers: [WorkflowRegistry, StartRunHandler, EngineCommandsConsumer], exports: [WorkflowRegistry] })
export class EngineModule {}
