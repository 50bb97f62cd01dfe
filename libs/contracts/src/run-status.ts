// The host's one list of run statuses. Import-free on purpose: the SDK's generator
// (tools/sdk/generate-run-event-types.mts) loads this file directly.

/** Every run status, in the order of `run-snapshot.schema.json` `properties.status` (a unit test keeps them equal). */
export const RUN_STATUSES = [
  'pending',
  'running',
  'paused',
  'waiting-approval',
  'waiting-input',
  'waiting-external',
  'completed',
  'failed',
  'cancelling',
  'cancelled',
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * The statuses a run never leaves (`run.completed`, `run.failed`, `run.cancelled`). `cancelling` is
 * not one: the cancel cascade is still running.
 */
export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const;

export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

const TERMINAL: ReadonlySet<unknown> = new Set(TERMINAL_RUN_STATUSES);

/** Whether a run in `status` has ended (nothing about it changes any more). */
export function isTerminalRunStatus(status: unknown): status is TerminalRunStatus {
  return TERMINAL.has(status);
}
