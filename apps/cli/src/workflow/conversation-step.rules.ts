/** The node type of a conversation step: one agent answering the turns a person types. */
export const CONVERSATION_TYPE_ID = 'agent.conversation';

/** Config fields a conversation step understands. */
export const CONVERSATION_FIELDS = [
  'provider',
  'script',
  'system_prompt',
  'continue_from',
  'timeout_ms',
  // Also read by the host's node: the model of `provider: openai`, the agent's id and name, an opening prompt.
  'model',
  'agent_id',
  'name',
  'prompt',
] as const;

/** Providers a conversation step may name. */
export const CONVERSATION_PROVIDERS = ['scripted', 'openai'] as const;

/**
 * Fields of the older conversation format, refused with what to write instead. Each had a meaning
 * the current step expresses differently (or not at all, on purpose).
 */
export const LEGACY_CONVERSATION_FIELDS: Readonly<Record<string, { message: string; fix: string }>> = {
  max_turns: {
    message: 'is a field of the older conversation format; a conversation has no turn limit',
    fix: 'use timeout_ms or close the conversation with an empty line',
  },
  stop_condition: {
    message: 'is a field of the older conversation format; a conversation ends when the person closes it',
    fix: 'remove it: the conversation closes on an empty line (or `exit`/`quit`, or end of input), or when timeout_ms runs out',
  },
  inject_context: {
    message: 'is a field of the older conversation format',
    fix: "use continue_from: <id of an earlier agent.conversation step> to carry that step's transcript",
  },
  strategy: {
    message:
      'is a field of the older conversation format; a conversation step is one agent answering each turn',
    fix: 'remove it: for several agents, use one agent.conversation step each and continue_from between them',
  },
  max_context_tokens: {
    message: 'is a field of the older conversation format; the provider receives the whole transcript',
    fix: 'remove it: to keep the context short, start a fresh step (leave out continue_from)',
  },
  initial_prompt: {
    message: 'is a field of the older conversation format',
    fix: 'use system_prompt',
  },
};

/** The closest of `allowed` to `name` (case, `_`/`-` and camelCase ignored, then edit distance ≤ 2). */
export function closestField(name: string, allowed: readonly string[]): string | undefined {
  const norm = (s: string) => s.replace(/[_-]/g, '').toLowerCase();
  const exact = allowed.find((a) => norm(a) === norm(name));
  if (exact) return exact;
  let best: { field: string; distance: number } | undefined;
  for (const a of allowed) {
    const distance = editDistance(norm(a), norm(name));
    if (distance <= 2 && (!best || distance < best.distance)) best = { field: a, distance };
  }
  return best?.field;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
