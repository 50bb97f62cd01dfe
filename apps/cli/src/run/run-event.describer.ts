import { text } from '../util/text';
import type { Output } from '../util/output';

interface EventLike {
  readonly type: string;
  readonly nodeId?: string;
  readonly payload: Record<string, unknown>;
}

/** One progress line for a run event, or `undefined` for events shown otherwise (chunks, turns) or not at all. */
export function describeEvent(e: EventLike, out: Output): string | undefined {
  const p = e.payload;
  const node = e.nodeId ?? (typeof p.nodeId === 'string' ? p.nodeId : '?');
  switch (e.type) {
    case 'run.started':
      return out.paint('dim', `▶ run started`);
    case 'run.completed':
      return out.paint('green', '✔ run completed');
    case 'run.failed':
      return out.paint('red', `✘ run failed${errorText(p)}`);
    case 'run.cancelled':
      return out.paint('yellow', '✘ run cancelled');
    case 'node.completed': {
      const outputs = p.outputs as Record<string, unknown> | undefined;
      // A conversation step's output is its last reply: shown when there is one, never an empty `— output:`.
      const reply =
        outputs && typeof outputs.reply === 'string' && outputs.reply.trim() !== ''
          ? ` — output: ${outputs.reply}`
          : '';
      return `${out.paint('green', '✓')} ${node} completed${reply}`;
    }
    case 'node.failed':
      return `${out.paint('red', '✗')} ${node} failed${errorText(p)}`;
    case 'node.suspended':
      return out.paint('dim', `… ${node} waits (${text(p.kind ?? p.reason ?? 'input')})`);
    case 'interrupt.resolved':
      return out.paint('dim', `↳ ${node} answered`);
    case 'conversation.closed':
      // A close typed here says so itself; one the agent's side made is told.
      return (p.outcome as { reason?: unknown } | undefined)?.reason === 'script-ended'
        ? out.paint('dim', "conversation closed: the agent's script has no more lines")
        : undefined;
    default:
      return undefined;
  }
}

function errorText(p: Record<string, unknown>): string {
  const error = p.error as { code?: unknown; message?: unknown } | undefined;
  if (!error) return '';
  return `: ${text(error.code)}${error.message ? ` ${text(error.message)}` : ''}`;
}
