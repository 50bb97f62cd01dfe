/** What a pending interrupt asks, in words, for an inbox row (never a token or a secret: ADR 0015). */
export interface Asked {
  readonly title: string;
  readonly question?: string;
  readonly summary?: string;
}

const MAX_ASKED_CHARS = 280;

function text(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.length > MAX_ASKED_CHARS ? `${value.slice(0, MAX_ASKED_CHARS - 1)}…` : value;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * `asked` of an inbox row from the interrupt's `data` (`interrupt.md` §"Per-kind payloads"): the
 * approval's title and description, a clarification's questions, the event an external-event waits
 * for, a conversation's title and prompt; any other kind its title, question or prompt. Each string
 * is cut at 280 characters.
 */
export function askedOf(kind: string, data: unknown, nodeId: string): Asked {
  const d = record(data);
  const fallback = `${kind} at ${nodeId}`;
  const opt = (question: string | undefined, summary: string | undefined) => ({
    ...(question !== undefined ? { question } : {}),
    ...(summary !== undefined ? { summary } : {}),
  });
  if (kind === 'approval') {
    const artifact = text(d.artifactType);
    return {
      title: text(d.title) ?? fallback,
      ...opt(text(d.description), artifact ? `Approve ${artifact}` : undefined),
    };
  }
  if (kind === 'clarification') {
    const questions = Array.isArray(d.questions) ? d.questions.map(record) : [];
    const asked = questions.map((q) => text(q.question) ?? text(q.id) ?? '?').join(' · ');
    const count = `${questions.length} question${questions.length === 1 ? '' : 's'}`;
    return { title: text(d.title) ?? 'Clarification', ...opt(text(asked), count) };
  }
  if (kind === 'external-event') {
    const eventType = text(d.eventType);
    return { title: eventType ? `Waits for ${eventType}` : fallback, ...opt(undefined, text(d.description)) };
  }
  if (kind.startsWith('conversation.')) {
    return { title: text(d.title) ?? 'Conversation turn', ...opt(text(d.prompt), text(d.description)) };
  }
  return {
    title: text(d.title) ?? text(d.customKind) ?? fallback,
    ...opt(text(d.question) ?? text(d.prompt), text(d.summary) ?? text(d.description)),
  };
}
