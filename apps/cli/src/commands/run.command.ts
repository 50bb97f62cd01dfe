import { OpenWopNotFoundError, type OpenWopClient } from '@openwop/sdk';
import type { CliContext } from '../cli.context';
import { Interruption } from '../run/interruption';
import { LineInput } from '../run/line-input';
import { RunFollower } from '../run/run.follower';
import type { PresetAnswers } from '../run/interrupt-answers';
import { approvalValueOf } from '../run/approval-actions';
import { runStateText, waitingFor } from '../run/run-state';
import { keyValues, option } from '../util/args.parser';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';
import { loadWorkflowFile } from './validate.command';

/**
 * `wop run <file> [--input k=v …]`: validates the file, registers the workflow when the server does
 * not have this version of it, starts a run and follows it to the end.
 */
export async function runCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const file = ctx.args.positionals[1];
  if (!file) throw new UsageError('wop run <workflow file> [--input key=value …]');
  // Every flag is checked before the first request: a typo never leaves a run behind.
  const preset = presetOf(ctx);
  const inputs = keyValues(ctx.args, 'input');
  const loaded = loadWorkflowFile(ctx, file);
  if (!loaded.ok || !loaded.definition) return ExitCode.usage;
  const client = ctx.client();
  const workflowId = String(loaded.definition.id);
  await registerIfNeeded(client, loaded.definition);
  const created = await client.createRun({ workflowId, ...(Object.keys(inputs).length ? { inputs } : {}) });
  ctx.out.record({ type: 'run', runId: created.runId, workflowId, status: created.status });
  ctx.out.line(`run ${created.runId} (workflow ${workflowId})`);
  return follow(ctx, created.runId, preset);
}

/** `wop attach <runId>`: follows a run that is already going, from where it stands. */
export async function attachCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const runId = ctx.args.positionals[1];
  if (!runId) throw new UsageError('wop attach <runId>');
  const preset = presetOf(ctx);
  const run = await ctx.client().getRun(runId);
  ctx.out.record({ type: 'run', runId, workflowId: run.workflowId, status: run.status, ...waitingFor(run) });
  ctx.out.line(`run ${runId} (workflow ${run.workflowId}) ${runStateText(run)}`);
  return follow(ctx, runId, preset);
}

async function follow(ctx: CliContext, runId: string, preset: PresetAnswers): Promise<ExitCodeValue> {
  const interruption = new Interruption();
  const onSignal = (): void => interruption.request();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const input = new LineInput(ctx.io.stdin, ctx.out.json ? ctx.io.stderr : ctx.io.stdout, onSignal);
  try {
    const follower = new RunFollower(ctx.client(), runId, ctx.out, input, interruption, {
      cancelOnInterrupt: ctx.args.flags.has('cancel-on-interrupt'),
      preset,
    });
    return await follower.follow();
  } finally {
    input.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The answers given by flags, checked here (before any request): `--action` against the approval
 * vocabulary, `--feedback` only with it, `--action` and `--value` not both, `--answer` as key=value,
 * `--value` as JSON.
 */
function presetOf(ctx: CliContext): PresetAnswers {
  const action = option(ctx.args, 'action');
  const feedback = option(ctx.args, 'feedback');
  const rawValue = option(ctx.args, 'value');
  const answers = keyValues(ctx.args, 'answer');
  if (action !== undefined && rawValue !== undefined)
    throw new UsageError('--action and --value do not go together (--value is the whole resume value)');
  if (feedback !== undefined && action === undefined) throw new UsageError('--feedback goes with --action');
  return {
    ...(action !== undefined ? { approval: approvalValueOf(action, feedback) } : {}),
    ...(Object.keys(answers).length ? { answers } : {}),
    ...(rawValue !== undefined ? { value: parseJsonOption('value', rawValue) } : {}),
  };
}

export function parseJsonOption(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new UsageError(`--${name} must be JSON, got ${JSON.stringify(raw)}`);
  }
}

/** Registers the definition unless the server already holds exactly this one. */
async function registerIfNeeded(client: OpenWopClient, definition: Record<string, unknown>): Promise<void> {
  try {
    const current = await client.getWorkflow(String(definition.id));
    if (canonical(current) === canonical(definition)) return;
  } catch (e) {
    if (!(e instanceof OpenWopNotFoundError)) throw e;
  }
  await client.registerWorkflow(definition);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
