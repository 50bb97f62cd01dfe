import type { CliContext } from '../cli.context';
import { option } from '../util/args.parser';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';
import { parseJsonOption } from './run.command';

const ACTIONS = new Set(['accept', 'reject', 'refine', 'edit', 'edit-accept', 'ask']);

/**
 * `wop resolve <runId> <nodeId> --action accept|reject|refine|edit|ask [--feedback TEXT] | --value JSON`:
 * answers one pending interrupt; `--value` sends any resume value (clarification answers, an
 * external event's `{eventPayload}`, an edited artifact).
 */
export async function resolveCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const [, runId, nodeId] = ctx.args.positionals;
  const action = option(ctx.args, 'action');
  const raw = option(ctx.args, 'value');
  if (!runId || !nodeId || (action === undefined) === (raw === undefined)) {
    throw new UsageError(
      'wop resolve <runId> <nodeId> (--action accept|reject|refine|edit|ask [--feedback TEXT] | --value JSON)',
    );
  }
  if (action !== undefined && !ACTIONS.has(action))
    throw new UsageError(`--action must be one of ${[...ACTIONS].join(', ')}`);
  const feedback = option(ctx.args, 'feedback');
  const value = raw !== undefined ? parseJsonOption('value', raw) : actionValue(action!, feedback);
  const result = await ctx.client().resolveInterrupt(runId, nodeId, value);
  ctx.out.record({ type: 'resolved', ...result });
  ctx.out.line(`${runId} ${nodeId}: ${result.status}`);
  return ExitCode.ok;
}

function actionValue(action: string, feedback: string | undefined): unknown {
  switch (action) {
    case 'refine':
      return { action, refineFeedback: { scope: 'whole', text: feedback ?? '' } };
    case 'ask':
      return { action, question: feedback ?? '' };
    case 'edit':
    case 'edit-accept':
      throw new UsageError(
        'an edit needs the edited artifact: --value \'{"action":"edit-accept","editedArtifactData":…}\'',
      );
    default:
      return { action, ...(feedback ? { feedback } : {}) };
  }
}

/** `wop cancel <runId> [--reason TEXT]`. */
export async function cancelCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const runId = ctx.args.positionals[1];
  if (!runId) throw new UsageError('wop cancel <runId> [--reason TEXT]');
  const result = await ctx.client().cancelRun(runId, option(ctx.args, 'reason'));
  ctx.out.record({ type: 'cancelled', ...result });
  ctx.out.line(`${runId}: ${result.status}`);
  return ExitCode.ok;
}
