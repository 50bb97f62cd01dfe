/** The documented exit codes of `wop`. */
export const ExitCode = {
  ok: 0,
  /** The run failed or was cancelled. */
  runFailed: 1,
  /** Bad command line or an invalid workflow file. */
  usage: 2,
  /** The server refused or did not answer. */
  api: 3,
  /** Ctrl+C (or end of input) while the run waits: it stays durable, `wop attach` resumes it. */
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A usage error: printed with the command's help line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
