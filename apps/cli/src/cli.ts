import { OpenWopApiError, OpenWopValidationError } from '@openwop/sdk';
import { contextOf, type CliContext, type CliIo } from './cli.context';
import {
  conversationsCommand,
  eventsCommand,
  interruptsCommand,
  runsCommand,
} from './commands/listing.commands';
import { cancelCommand, resolveCommand } from './commands/resolve.command';
import { auditCommand } from './commands/audit.command';
import { attachCommand, runCommand } from './commands/run.command';
import { validateCommand } from './commands/validate.command';
import { parseArgs } from './util/args.parser';
import { keyHint } from './util/connection.config';
import { ExitCode, UsageError, type ExitCodeValue } from './util/exit-codes';
import { Output } from './util/output';

export const HELP = `wop — run, follow and answer OpenWOP workflows

usage: wop <command> [options]

commands:
  run <file> [--input key=value …]     validate, register and start a workflow (JSON or YAML), follow it to the end
                                       answering approvals, clarifications and conversations at the terminal
      [--action A] [--feedback T]      answer approvals without asking (accept|reject|refine|ask; an edit
                                       needs --value '{"action":"edit-accept","editedArtifactData":…}')
      [--answer id=value …]            answer clarification questions without asking
      [--value JSON]                   answer any interrupt with this resume value
      [--cancel-on-interrupt]          Ctrl+C cancels the run (default: it stays waiting; wop attach resumes it)
                                       every flag is checked before the first request (a typo starts nothing)
  attach <runId>                       follow a running or waiting run from where it stands (same options as run)
  validate <file>                      validate a workflow file only
  runs ls [--status S] [--workflow W] [--limit N] [--cursor C] [--all]
  interrupts [--kind K] [--run RUN]    pending interrupts across runs
  resolve <runId> <nodeId> (--action accept|reject|refine|ask [--feedback T] | --value JSON)
  events <runId> [--follow] [--after N]
  conversations show <runId> [conversationId] | conversations ls <runId>
  cancel <runId> [--reason T]
  audit export [--from T] [--to T] [--after N]
                                       the tenant's audit log (NDJSON) to stdout: wop audit export > audit.ndjson;
                                       its first line is the chain head signed by the host (when it has a key)
  audit verify <file> [--partial] [--public-key KEY]
                                       check an audit export offline: every edited, missing, reordered or
                                       unlinked record is named; --partial for an export that starts after seq 1;
                                       --public-key (base64, PEM, or a file of either; GET /v1/audit/public-key)
                                       also checks the signed head, so an export re-hashed after an edit fails

options:
  --url URL        server (env WOP_URL, default http://127.0.0.1:8080)
  --api-key KEY    API key (env WOP_API_KEY, else .infra/stack/api-key for the gateways stack:up runs,
                   else .infra/embedded/dev-api-key of the embedded host; found from the repository folder)
  --json           machine-readable output: NDJSON records on stdout (run progress with the runId, listings)
  --no-color       no colours (also off under NO_COLOR or when stdout is not a terminal)

input: a terminal, or piped lines (one line per answer or turn; end of input closes a conversation)

exit codes:
  0    ok
  1    the run failed or was cancelled; wop audit verify: the file does not verify
  2    usage or validation error (a bad flag or file is refused before anything is sent)
  3    server or API error
  4    input ended while the run waits for an answer (piped stdin ran out); the run stays waiting: wop attach
  130  interrupted (Ctrl+C); the run stays waiting (wop attach), or is cancelled with --cancel-on-interrupt
`;

/** Options every command takes. */
const GLOBAL_OPTIONS = ['url', 'api-key', 'json', 'no-color', 'help', 'version'];
const ANSWER_OPTIONS = ['action', 'feedback', 'answer', 'value', 'cancel-on-interrupt'];

/** The options (valued or flags) each command takes besides {@link GLOBAL_OPTIONS}; any other is a usage error. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  run: ['input', ...ANSWER_OPTIONS],
  attach: ANSWER_OPTIONS,
  validate: [],
  runs: ['status', 'workflow', 'limit', 'cursor', 'all'],
  interrupts: ['kind', 'run', 'limit'],
  resolve: ['action', 'feedback', 'value'],
  events: ['follow', 'after'],
  conversations: [],
  cancel: ['reason'],
  audit: ['from', 'to', 'after', 'partial', 'public-key'],
};

const COMMANDS: Readonly<Record<string, (ctx: CliContext) => Promise<ExitCodeValue>>> = {
  run: runCommand,
  attach: attachCommand,
  validate: validateCommand,
  runs: runsCommand,
  interrupts: interruptsCommand,
  resolve: resolveCommand,
  events: eventsCommand,
  conversations: conversationsCommand,
  cancel: cancelCommand,
  audit: auditCommand,
};

/** Runs `wop` with `argv` (without `node` and the script); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCodeValue> {
  let out = new Output(false, io.stdout, io.stderr, io.env);
  let ctx: CliContext | undefined;
  try {
    const args = parseArgs(argv);
    out = new Output(args.flags.has('json'), io.stdout, io.stderr, io.env, args.flags.has('no-color'));
    const name = args.positionals[0];
    if (args.flags.has('version')) {
      out.line('wop 0.1.0');
      return ExitCode.ok;
    }
    if (!name || args.flags.has('help') || name === 'help') {
      io.stdout.write(HELP);
      return name || args.flags.has('help') || name === 'help' ? ExitCode.ok : ExitCode.usage;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command ${name}`);
    const allowed = new Set([...GLOBAL_OPTIONS, ...(COMMAND_OPTIONS[name] ?? [])]);
    const stray = [...args.options.keys(), ...args.flags].find((o) => !allowed.has(o));
    if (stray !== undefined) throw new UsageError(`--${stray} does not apply to wop ${name}`);
    ctx = contextOf(args, out, io);
    return await command(ctx);
  } catch (error) {
    const code = reportError(out, error);
    // The server refused the key: say which one was sent and where keys are kept.
    if (error instanceof OpenWopApiError && error.status === 401 && ctx) out.error(keyHint(ctx.connection()));
    return code;
  }
}

function reportError(out: Output, error: unknown): ExitCodeValue {
  if (error instanceof UsageError) {
    out.error(`${error.message} (wop --help)`);
    out.record({ type: 'error', code: 'usage', message: error.message });
    return ExitCode.usage;
  }
  if (error instanceof OpenWopApiError) {
    out.error(`${error.code}: ${error.message.replace(/^\d+ [a-z_]+: /, '')}`);
    const errors = (error.details as { errors?: { path?: string; message?: string }[] } | undefined)?.errors;
    for (const e of errors ?? []) out.error(`  ${e.path ?? ''} ${e.message ?? ''}`);
    out.record({
      type: 'error',
      status: error.status,
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    });
    return error instanceof OpenWopValidationError && error.code === 'validation_error'
      ? ExitCode.usage
      : ExitCode.api;
  }
  out.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return ExitCode.api;
}
