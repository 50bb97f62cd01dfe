import { InitialSchema1700000000000 } from './1700000000000-initial-schema';

/** Every migration, oldest first. Schema changes are migrations, never `synchronize`. */
export const MIGRATIONS = [InitialSchema1700000000000];
