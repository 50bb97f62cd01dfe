import type { Diagnostic } from './diagnostic';
import {
  closestField,
  CONVERSATION_FIELDS,
  CONVERSATION_PROVIDERS,
  CONVERSATION_TYPE_ID,
  LEGACY_CONVERSATION_FIELDS,
} from './conversation-step.rules';
import type { WorkflowSource } from './workflow-source';

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
 * fresh: a warning, not an error.
 */
export function checkConversationSteps(
  definition: Record<string, unknown>,
  source: WorkflowSource,
): Diagnostic[] {
  const nodes = (Array.isArray(definition.nodes) ? definition.nodes : []) as NodeLike[];
  const edges = (Array.isArray(definition.edges) ? definition.edges : []) as {
    sourceNodeId?: unknown;
    targetNodeId?: unknown;
  }[];
  const out: Diagnostic[] = [];
  const report = (
    severity: Diagnostic['severity'],
    pointer: string,
    field: string | undefined,
    message: string,
    fix?: string,
  ) => {
    const pos = source.positionOf(pointer);
    out.push({
      severity,
      pointer,
      ...(field !== undefined ? { field } : {}),
      line: pos.line,
      col: pos.col,
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
    if (c.provider === undefined) {
      report(
        'error',
        `${at}/config/provider`,
        'provider',
        `is required on conversation step \`${step}\``,
        'add provider: scripted (with script: [replies…]) or provider: openai',
      );
    } else if (!(CONVERSATION_PROVIDERS as readonly unknown[]).includes(c.provider)) {
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
