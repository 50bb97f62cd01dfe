import type { CliContext } from '../cli.context';
import { option } from '../util/args.parser';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';
import { approvalValueOf } from '../run/approval-actions';
import { parseJsonOption } from './run.command';

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
  const feedback = option(ctx.args, 'feedback');
  if (feedback !== undefined && action === undefined) throw new UsageError('--feedback goes with --action');
  const value = raw !== undefined ? parseJsonOption('value', raw) : approvalValueOf(action!, feedback);
  const result = await ctx.client().resolveInterrupt(runId, nodeId, value);
  ctx.out.record({ type: 'resolved', ...result });
  ctx.out.line(`${runId} ${nodeId}: ${result.status}`);
  return ExitCode.ok;
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
