import { RunEventEntity } from './run-event.entity';
import { RunSnapshotEntity } from './run-snapshot.entity';

export { RunEventEntity, RunSnapshotEntity };
export const READ_MODEL_ENTITIES = [RunEventEntity, RunSnapshotEntity];
