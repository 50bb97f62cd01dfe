import { readFileSync } from 'node:fs';
import type { CliContext } from '../cli.context';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';
import { formatDiagnostic } from '../workflow/diagnostic';
import { validateWorkflowText, type WorkflowValidation } from '../workflow/workflow-file.validator';

/** Reads and validates a workflow file, printing every finding; `undefined` definition when it has errors. */
export function loadWorkflowFile(ctx: CliContext, file: string): WorkflowValidation {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const result = validateWorkflowText(text);
  for (const d of result.diagnostics) {
    ctx.out.diagnostic(formatDiagnostic(file, d, ctx.out));
    ctx.out.record({ type: 'diagnostic', file, ...d });
  }
  return result;
}

/** `wop validate <file>`: exit 0 when valid (warnings allowed), 2 with the findings otherwise. */
export async function validateCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const file = ctx.args.positionals[1];
  if (!file) throw new UsageError('wop validate <workflow file>');
  const result = loadWorkflowFile(ctx, file);
  ctx.out.record({ type: 'validation', file, ok: result.ok });
  if (result.ok)
    ctx.out.line(
      `${file}: valid${result.diagnostics.length ? ` (${result.diagnostics.length} warning${result.diagnostics.length > 1 ? 's' : ''})` : ''}`,
    );
  return result.ok ? ExitCode.ok : ExitCode.usage;
}
