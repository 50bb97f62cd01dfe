export { EngineModule } from './engine.module';
export { WorkflowRegistry } from './workflow-registry';
