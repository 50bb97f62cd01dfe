import { createHash } from 'node:crypto';

/** Id of the one node of a seam council: the `core.conversationGate` holding the conversation. */
export const COUNCIL_NODE_ID = 'council';

/** A roster member as the seam takes it (`AgentRef`; only `agentId` decides membership). */
export interface SeamAgentRef {
  readonly agentId: string;
  readonly name?: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The run that holds `conversationId` for `tenant`: a UUID-shaped id derived from both, so a second
 * `open` of the same id finds the same run, and another tenant's id of the same name is another run.
 */
export function councilRunId(tenant: string, conversationId: string): string {
  const h = sha256(`openwop-host-sample-multi-party\u0000${tenant}\u0000${conversationId}`);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The workflow a seam council runs: one `core.conversationGate` with `participants` as its roster,
 * so turns go through the same roster and attribution rules as any conversation of this host. Its
 * id is derived from the roster (order kept: it is the roster's order on `conversation.opened`), so
 * one roster is one workflow, registered idempotently.
 */
export function councilWorkflow(participants: readonly unknown[]): {
  id: string;
  definition: Record<string, unknown>;
} {
  const id = `host-sample-multi-party-${sha256(JSON.stringify(participants)).slice(0, 24)}`;
  return {
    id,
    definition: {
      id,
      name: 'Host sample: multi-party council',
      version: '1.0',
      description:
        'Made by POST /v1/host/sample/conversation/multi-party/open (host-sample-test-seams.md, RFC 0101): one conversation gate holding the roster it was opened with.',
      nodes: [
        {
          id: COUNCIL_NODE_ID,
          typeId: 'core.conversationGate',
          name: 'Council',
          config: { prompt: 'The council is open.', participants },
        },
      ],
      edges: [],
      triggers: [{ id: 'manual', type: 'manual', enabled: true }],
      metadata: { tags: ['host-sample', 'multi-party-conversation'] },
    },
  };
}

/**
 * A roster as the workflow definition holds it: each member's `agentId` and `name` (what the seam's
 * `AgentRef` carries); anything that is not an object is kept, for the definition's validation to refuse.
 */
export function rosterOf(participants: readonly unknown[]): unknown[] {
  return participants.map((p) => {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return p;
    const { agentId, name } = p as Record<string, unknown>;
    return { agentId, ...(name !== undefined ? { name } : {}) };
  });
}

/** A refusal's field paths, from the definition's roster (`/nodes/0/config/participants/…`) back to the request's (`/participants/…`). */
export function requestPathOf(path: string): string {
  const prefix = '/nodes/0/config/participants';
  return path.startsWith(prefix) ? `/participants${path.slice(prefix.length)}` : path;
}
