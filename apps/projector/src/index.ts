export { ProjectorModule } from './projector.module';
export { applyRunEvent, SequenceGapError } from './run-event.projection';
export { rebuildProjections, compareProjections, type RebuildResult } from './rebuild/rebuild-projections';
