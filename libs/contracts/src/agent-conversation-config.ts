/**
 * The `config` of an `agent.conversation` step (one agent answering the turns a person types): its
 * fields, the older format's fields and what to write instead, and the checks the workflow schema
 * cannot make (the schema leaves a node's `config` free-form). The one copy: `wop validate`/`wop run`
 * report these with line and column, and workflow registration refuses the errors.
 */

/** The node type of a conversation step. */
export const CONVERSATION_TYPE_ID = 'agent.conversation';

/** Config fields a conversation step understands: every field the host's node reads. */
export const CONVERSATION_FIELDS = [
  'provider',
  'script',
  'system_prompt',
  'continue_from',
  'timeout_ms',
  'max_silence_ms',
  // Also read by the host's node: the model of `provider: openai`, the agent's id and name, an opening prompt.
  'model',
  'agent_id',
  'name',
  'prompt',
  // The node's other spellings of timeout_ms, max_silence_ms and prompt.
  'timeoutMs',
  'maxSilenceMs',
  'topic',
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

/** One finding about a conversation step's config: where (JSON pointer), what, and what to write instead. */
export interface ConversationStepProblem {
  readonly severity: 'error' | 'warning';
  readonly pointer: string;
  /** The field's name, when the finding is about one field. */
  readonly field?: string;
  readonly message: string;
  /** What to write instead. */
  readonly fix?: string;
}

interface NodeLike {
  readonly id?: unknown;
  readonly typeId?: unknown;
  readonly config?: unknown;
  readonly [field: string]: unknown;
}

/**
 * The checks of `agent.conversation` steps the schema cannot make (their `config` is free-form
 * there): older-format fields (on the node or in its config), unknown and missing config fields,
 * field types, and `continue_from`, which must name an earlier conversation step (one with a path
 * of edges to this one). A conversation step after an earlier one without `continue_from` starts
 * fresh: a warning, not an error. With `requireProvider` a missing `provider` is an error (the
 * command line asks authors to name one; registration does not: the host then uses its own).
 */
export function conversationStepProblems(
  definition: Record<string, unknown>,
  options: { readonly requireProvider: boolean },
): ConversationStepProblem[] {
  const nodes = (Array.isArray(definition.nodes) ? definition.nodes : []) as NodeLike[];
  const edges = (Array.isArray(definition.edges) ? definition.edges : []) as {
    sourceNodeId?: unknown;
    targetNodeId?: unknown;
  }[];
  const out: ConversationStepProblem[] = [];
  const report = (
    severity: ConversationStepProblem['severity'],
    pointer: string,
    field: string | undefined,
    message: string,
    fix?: string,
  ) => {
    out.push({
      severity,
      pointer,
      ...(field !== undefined ? { field } : {}),
      message,
      ...(fix ? { fix } : {}),
    });
  };
  const byId = new Map<string, NodeLike>();
  for (const n of nodes) if (typeof n?.id === 'string') byId.set(n.id, n);
  const upstream = ancestors(edges);

  nodes.forEach((node, i) => {
    if (node?.typeId !== CONVERSATION_TYPE_ID) return;
    const at = `/nodes/${i}`;
    const step = typeof node.id === 'string' ? node.id : `#${i}`;
    for (const legacy of Object.keys(LEGACY_CONVERSATION_FIELDS)) {
      if (Object.hasOwn(node, legacy)) {
        const rule = LEGACY_CONVERSATION_FIELDS[legacy]!;
        report(
          'error',
          `${at}/${legacy}`,
          legacy,
          `${rule.message} (conversation step \`${step}\`)`,
          rule.fix,
        );
      }
    }
    const config = node.config;
    if (typeof config !== 'object' || config === null || Array.isArray(config)) return;
    const c = config as Record<string, unknown>;
    for (const key of Object.keys(c)) {
      const legacy = LEGACY_CONVERSATION_FIELDS[key];
      if (legacy) {
        report(
          'error',
          `${at}/config/${key}`,
          key,
          `${legacy.message} (conversation step \`${step}\`)`,
          legacy.fix,
        );
      } else if (!(CONVERSATION_FIELDS as readonly string[]).includes(key)) {
        const near = closestField(key, CONVERSATION_FIELDS);
        report(
          'error',
          `${at}/config/${key}`,
          key,
          `is not a field of a conversation step (\`${step}\`)`,
          near
            ? `write \`${near}\``
            : `remove it (a conversation step takes ${CONVERSATION_FIELDS.join(', ')})`,
        );
      }
    }
    if (c.provider === undefined && options.requireProvider) {
      report(
        'error',
        `${at}/config/provider`,
        'provider',
        `is required on conversation step \`${step}\``,
        'add provider: scripted (with script: [replies…]) or provider: openai',
      );
    } else if (
      c.provider !== undefined &&
      !(CONVERSATION_PROVIDERS as readonly unknown[]).includes(c.provider)
    ) {
      report(
        'error',
        `${at}/config/provider`,
        'provider',
        `${JSON.stringify(c.provider)} is not a provider`,
        `write provider: ${CONVERSATION_PROVIDERS.join(' or provider: ')}`,
      );
    }
    if (c.provider === 'scripted' && c.script === undefined) {
      report(
        'error',
        `${at}/config/script`,
        'script',
        `is required with provider scripted (conversation step \`${step}\`)`,
        'add script: ["first reply", "second reply", …] (the agent\'s replies, in order)',
      );
    }
    if (
      c.script !== undefined &&
      !(Array.isArray(c.script) && c.script.every((s) => typeof s === 'string'))
    ) {
      report(
        'error',
        `${at}/config/script`,
        'script',
        'must be a list of strings',
        'write script: ["first reply", "second reply", …]',
      );
    }
    if (c.system_prompt !== undefined && typeof c.system_prompt !== 'string') {
      report(
        'error',
        `${at}/config/system_prompt`,
        'system_prompt',
        'must be a string',
        'write system_prompt: "You are …"',
      );
    }
    if (c.timeout_ms !== undefined && !(Number.isInteger(c.timeout_ms) && (c.timeout_ms as number) > 0)) {
      report(
        'error',
        `${at}/config/timeout_ms`,
        'timeout_ms',
        'must be a positive whole number of milliseconds',
        'write timeout_ms: 600000 (ten minutes)',
      );
    }
    const before = [...(upstream.get(step) ?? [])].filter(
      (id) => id !== step && byId.get(id)?.typeId === CONVERSATION_TYPE_ID,
    );
    // The latest first: earlier conversation steps that no other one comes after.
    const latest = before.filter((a) => !before.some((b) => b !== a && upstream.get(b)?.has(a)));
    const earlier = [...latest, ...before.filter((a) => !latest.includes(a))];
    if (c.continue_from !== undefined) {
      const target = c.continue_from;
      const hint = earlier.length
        ? `write continue_from: ${earlier.join(' or continue_from: ')}`
        : 'remove it: no conversation step comes before this one';
      if (typeof target !== 'string') {
        report(
          'error',
          `${at}/config/continue_from`,
          'continue_from',
          'must be the id of an earlier conversation step',
          hint,
        );
      } else if (!byId.has(target)) {
        report(
          'error',
          `${at}/config/continue_from`,
          'continue_from',
          `names \`${target}\`, which is not a step of this workflow`,
          hint,
        );
      } else if (byId.get(target)?.typeId !== CONVERSATION_TYPE_ID) {
        report(
          'error',
          `${at}/config/continue_from`,
          'continue_from',
          `names \`${target}\`, which is not an agent.conversation step`,
          hint,
        );
      } else if (!earlier.includes(target)) {
        report(
          'error',
          `${at}/config/continue_from`,
          'continue_from',
          `names \`${target}\`, which does not come before \`${step}\` (no path of edges leads from it here)`,
          hint,
        );
      }
    } else if (earlier.length > 0) {
      report(
        'warning',
        `${at}/config`,
        undefined,
        `conversation step \`${step}\` starts fresh: it does not carry the transcript of the earlier conversation step ${earlier.map((e) => `\`${e}\``).join(', ')}`,
        `add continue_from: ${earlier[0]} to carry it`,
      );
    }
  });
  return out;
}

/** For each node id, the ids with a path of edges to it. */
function ancestors(
  edges: readonly { sourceNodeId?: unknown; targetNodeId?: unknown }[],
): Map<string, Set<string>> {
  const parents = new Map<string, string[]>();
  for (const e of edges) {
    if (typeof e?.sourceNodeId !== 'string' || typeof e.targetNodeId !== 'string') continue;
    parents.set(e.targetNodeId, [...(parents.get(e.targetNodeId) ?? []), e.sourceNodeId]);
  }
  const memo = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const found = new Set<string>();
    memo.set(id, found);
    const stack = [...(parents.get(id) ?? [])];
    while (stack.length) {
      const p = stack.pop()!;
      if (found.has(p)) continue;
      found.add(p);
      stack.push(...(parents.get(p) ?? []));
    }
    return found;
  };
  for (const id of parents.keys()) of(id);
  return memo;
}
