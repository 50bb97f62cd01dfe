import { DueTimes } from '@openwop/platform-db';

/**
 * The due times this process's interrupt decisions write (deadlines, escalation steps, claim
 * leases, a conversation's silence), told to its timer once committed (see {@link DueTimes}).
 */
export const INTERRUPT_DUE_TIMES = new DueTimes();
