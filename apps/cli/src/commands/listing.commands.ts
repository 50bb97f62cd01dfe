import type { CliContext } from '../cli.context';
import { option } from '../util/args.parser';
import { ExitCode, UsageError, type ExitCodeValue } from '../util/exit-codes';

/** Prints rows as NDJSON under `--json` (one object a line), else as an aligned table. */
function table(
  ctx: CliContext,
  kind: string,
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): void {
  if (ctx.out.json) {
    for (const row of rows) ctx.out.record({ type: kind, ...row });
    return;
  }
  if (rows.length === 0) {
    ctx.out.line(`no ${kind}s`);
    return;
  }
  const cells = rows.map((r) =>
    columns.map((c) => (r[c] === undefined ? '' : typeof r[c] === 'string' ? r[c] : JSON.stringify(r[c]))),
  );
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  ctx.out.line(
    ctx.out.paint(
      'bold',
      columns
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    ),
  );
  for (const row of cells)
    ctx.out.line(
      row
        .map((v, i) => v.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

function intOption(ctx: CliContext, name: string): number | undefined {
  const raw = option(ctx.args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number`);
  return Number(raw);
}

/** `wop runs ls [--status S] [--workflow W] [--limit N] [--all]`. */
export async function runsCommand(ctx: CliContext): Promise<ExitCodeValue> {
  if (ctx.args.positionals[1] !== 'ls')
    throw new UsageError('wop runs ls [--status S] [--workflow W] [--limit N] [--all]');
  const client = ctx.client();
  const status = option(ctx.args, 'status');
  const workflowId = option(ctx.args, 'workflow');
  const limit = intOption(ctx, 'limit');
  let cursor = option(ctx.args, 'cursor');
  const rows: Record<string, unknown>[] = [];
  let next: string | null = null;
  for (;;) {
    const page = await client.listRuns({
      ...(status ? { status } : {}),
      ...(workflowId ? { workflowId } : {}),
      ...(limit ? { limit } : {}),
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...page.runs.map((r) => ({ ...r })));
    next = page.nextCursor;
    if (!ctx.args.flags.has('all') || !next) break;
    cursor = next;
  }
  table(ctx, 'run', rows, ['runId', 'workflowId', 'status', 'currentNodeId', 'createdAt']);
  if (next) {
    ctx.out.record({ type: 'page', nextCursor: next });
    if (!ctx.out.json) ctx.out.line(ctx.out.paint('dim', `more: --cursor ${next}`));
  }
  return ExitCode.ok;
}

/** `wop interrupts [--kind K] [--run RUN]`: pending interrupts across runs. */
export async function interruptsCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const kind = option(ctx.args, 'kind');
  const runId = option(ctx.args, 'run');
  const limit = intOption(ctx, 'limit');
  const page = await ctx
    .client()
    .listInterrupts({ ...(kind ? { kind } : {}), ...(runId ? { runId } : {}), ...(limit ? { limit } : {}) });
  table(
    ctx,
    'interrupt',
    page.interrupts.map((i) => ({ ...i, age: `${Math.round(i.ageMs / 1000)}s` })),
    ['runId', 'nodeId', 'kind', 'workflowId', 'age'],
  );
  return ExitCode.ok;
}

/** `wop events <runId> [--follow] [--after N]`: the run's log, or its live stream. */
export async function eventsCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const runId = ctx.args.positionals[1];
  if (!runId) throw new UsageError('wop events <runId> [--follow]');
  const client = ctx.client();
  const after = intOption(ctx, 'after');
  const print = (
    e: { sequence?: number; type?: string; nodeId?: string; timestamp?: string },
    raw: unknown,
  ): void => {
    if (ctx.out.json) ctx.out.record({ type: 'event', runId, event: raw });
    else
      ctx.out.line(
        `${String(e.sequence ?? '').padStart(4)}  ${e.timestamp ?? ''}  ${e.type ?? ''}${e.nodeId ? `  ${e.nodeId}` : ''}`,
      );
  };
  if (!ctx.args.flags.has('follow')) {
    for (const e of await client.listEvents(runId, after !== undefined ? { after } : {})) print(e, e);
    return ExitCode.ok;
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.on('SIGINT', onSignal);
  try {
    for await (const frame of client.streamEvents(runId, {
      streamMode: 'debug',
      signal: stop.signal,
      ...(after !== undefined ? { after } : {}),
    })) {
      print(frame.data as Record<string, never>, frame.data);
    }
  } finally {
    process.off('SIGINT', onSignal);
  }
  return stop.signal.aborted ? ExitCode.interrupted : ExitCode.ok;
}

/** `wop conversations show <runId> [conversationId]`: transcripts (every conversation of the run without an id). */
export async function conversationsCommand(ctx: CliContext): Promise<ExitCodeValue> {
  const [, sub, runId, conversationId] = ctx.args.positionals;
  if ((sub !== 'show' && sub !== 'ls') || !runId)
    throw new UsageError('wop conversations show <runId> [conversationId] | wop conversations ls <runId>');
  const client = ctx.client();
  const summaries = await client.listConversations(runId);
  if (sub === 'ls') {
    table(
      ctx,
      'conversation',
      summaries.map((s) => ({ ...s })),
      ['conversationId', 'nodeId', 'status', 'turnCount', 'openedAt'],
    );
    return ExitCode.ok;
  }
  const ids = conversationId ? [conversationId] : summaries.map((s) => s.conversationId);
  for (const id of ids) {
    let after: number | undefined;
    let header = false;
    for (;;) {
      const page = await client.getConversation(runId, id, after !== undefined ? { after } : {});
      if (!header) {
        ctx.out.line(ctx.out.paint('bold', `conversation ${id} (step ${page.nodeId}, ${page.status})`));
        header = true;
      }
      for (const t of page.turns) {
        ctx.out.record({ type: 'turn', runId, conversationId: id, ...t });
        ctx.out.line(
          `  [${t.turnIndex}] ${t.role}: ${typeof t.content === 'string' ? t.content : JSON.stringify(t.content)}`,
        );
      }
      if (page.nextCursor === undefined || page.nextCursor === null || page.turns.length === 0) break;
      after = page.nextCursor;
    }
  }
  return ExitCode.ok;
}
