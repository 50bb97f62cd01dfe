/** The documented exit codes of `wop`. */
export const ExitCode = {
  ok: 0,
  /** The run failed or was cancelled. */
  runFailed: 1,
  /** `wop audit verify`: the file does not verify (each finding is printed). */
  verifyFailed: 1,
  /** Bad command line or an invalid workflow file. */
  usage: 2,
  /** The server refused or did not answer. */
  api: 3,
  /** Input ended where an answer was wanted (piped stdin ran out): the run stays waiting, `wop attach` resumes it. */
  inputEnded: 4,
  /** Ctrl+C (SIGINT, SIGTERM) while following: the run stays durable (`wop attach` resumes it) or is cancelled. */
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A usage error: printed with the command's help line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
