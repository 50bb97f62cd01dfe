import {
  conversationDocument,
  conversationFromDocument,
  conversationOfStored,
  decideConversation,
  evolveConversation,
  initialConversationState,
  silenceOfOpening,
  storedConversationOf,
  turnsSince,
  type ConversationEvent,
  type ConversationOpened,
  type ConversationState,
  type ConversationTurn,
} from '@openwop/conversation-domain';
import {
  decideFork,
  decideRun,
  runStateDocument,
  runStateFromDocument,
  type RunDecision,
} from '@openwop/engine-domain';
import {
  decideInterrupt,
  evolveInterrupt,
  interruptStateDocument,
  interruptStateFromDocument,
  type InterruptState,
} from '@openwop/interrupt-domain';
import { asJson, firstDifference, HistoryDivergence } from './divergence';
import {
  HISTORY_FORMAT,
  type ConversationStep,
  type HistoryStep,
  type InterruptStep,
  type RecordedHistory,
  type RunStep,
} from './history';

/** What one step gives when decided: the decision's output and the state document to store. */
export interface Decided {
  readonly decision: unknown;
  readonly state: object | null;
  readonly turns?: readonly ConversationTurn[];
}

/** A step's stored documents so far, per aggregate: what the next step of that aggregate reads. */
export interface Stores {
  readonly runs: Map<string, object | null>;
  readonly interrupts: Map<string, object | null>;
  readonly conversations: Map<string, { doc: object | null; turns: ConversationTurn[] }>;
}

/**
 * Replays a recorded history with today's code: each step reads the state its aggregate stored in the
 * previous step (the recorded document, through today's upcaster), decides the recorded command
 * with today's decider, and must give the recorded decision and store the recorded state document.
 * Ids and timestamps all come from the recorded commands, so nothing is left out of the comparison.
 *
 * @throws {@link HistoryDivergence} at the first step whose decision, stored state or turn rows
 * differ (or whose decision throws, or whose stored state this build cannot read).
 */
export async function replayHistory(history: RecordedHistory): Promise<void> {
  if (history.format !== HISTORY_FORMAT) {
    throw new Error(
      `history "${history.scenario}": format ${history.format}, this build reads ${HISTORY_FORMAT}`,
    );
  }
  const stores = newStores();
  for (const [n, step] of history.steps.entries()) {
    const at = `${step.stream} ${step.id}, ${commandTypeOf(step)}`;
    const fail = (what: string, recorded: unknown, replayed: unknown): HistoryDivergence => {
      const difference = firstDifference(recorded, replayed) ?? { path: '', recorded, replayed };
      return new HistoryDivergence(history.scenario, n, at, what, difference);
    };
    let replayed: Decided;
    try {
      replayed = await decideStep(step, stores);
    } catch (e) {
      if (e instanceof HistoryDivergence) throw e;
      const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      throw fail('the decision', recordedDecisionOf(step), { threw: message });
    }
    const decision = firstDifference(asJson(recordedDecisionOf(step)), asJson(replayed.decision));
    if (decision) throw new HistoryDivergence(history.scenario, n, at, 'the decision', decision);
    const state = firstDifference(asJson(step.state), asJson(replayed.state));
    if (state) throw new HistoryDivergence(history.scenario, n, at, 'the stored state', state);
    if (step.stream === 'conversation') {
      const turns = firstDifference(asJson(step.turns), asJson(replayed.turns ?? []));
      if (turns) throw new HistoryDivergence(history.scenario, n, at, 'the turn rows', turns);
    }
    remember(step, stores);
  }
}

function commandTypeOf(step: HistoryStep): string {
  if (step.stream === 'conversation' && !step.command) return 'conversation.opened';
  return step.command?.type ?? '?';
}

function recordedDecisionOf(step: HistoryStep): unknown {
  return step.stream === 'run' ? step.decision : step.events;
}

/** The input of a step: which aggregate, and the command (or the opened event) it is given. */
export type StepInput =
  | Pick<RunStep, 'stream' | 'id' | 'command'>
  | Pick<InterruptStep, 'stream' | 'id' | 'command'>
  | Pick<ConversationStep, 'stream' | 'id' | 'command' | 'opened'>;

/** No aggregate stored yet. */
export function newStores(): Stores {
  return { runs: new Map(), interrupts: new Map(), conversations: new Map() };
}

/**
 * Decides one step with today's code, on the state its aggregate stored last (read through today's
 * upcaster). The recorder writes down what this gives; the replay checks it gives the same again.
 */
export async function decideStep(step: StepInput, stores: Stores): Promise<Decided> {
  switch (step.stream) {
    case 'run':
      return replayRun(step, stores);
    case 'interrupt':
      return replayInterrupt(step, stores);
    case 'conversation':
      return replayConversation(step, stores);
  }
}

async function replayRun(step: Pick<RunStep, 'id' | 'command'>, stores: Stores): Promise<Decided> {
  const prior = runStateFromDocument(stores.runs.get(step.id));
  const decided: RunDecision =
    step.command.type === 'ForkRun'
      ? await decideFork(step.command, prior)
      : await decideRun(step.command, prior);
  const { state, ...decision } = decided;
  return { decision, state: state.status === 'none' ? null : runStateDocument(state) };
}

function replayInterrupt(step: Pick<InterruptStep, 'id' | 'command'>, stores: Stores): Decided {
  const prior = interruptStateFromDocument(stores.interrupts.get(step.id));
  const events = decideInterrupt(step.command, prior);
  const next: InterruptState = events.reduce(evolveInterrupt, prior);
  return { decision: events, state: next.status === 'none' ? null : interruptStateDocument(next) };
}

function replayConversation(
  step: Pick<ConversationStep, 'id' | 'command' | 'opened'>,
  stores: Stores,
): Decided {
  const held = stores.conversations.get(step.id);
  const prior: ConversationState = held?.doc
    ? conversationOfStored(conversationFromDocument(held.doc), held.turns)
    : initialConversationState();
  let events: ConversationEvent[] = [];
  let next: ConversationState;
  if (step.opened) {
    const opened = { type: 'conversation.opened', data: step.opened } as unknown as ConversationOpened;
    next = { ...evolveConversation(initialConversationState(), opened), ...silenceOfOpening(step.opened) };
  } else if (step.command) {
    events = decideConversation(step.command, prior);
    next = events.reduce(evolveConversation, prior);
  } else {
    throw new Error('a conversation step has neither a command nor an opened event');
  }
  if (next.status === 'not-open') return { decision: events, state: null, turns: [] };
  const since = prior.status === 'not-open' ? 0 : prior.nextTurnIndex;
  return {
    decision: events,
    state: conversationDocument(storedConversationOf(next)),
    turns: turnsSince(next, since),
  };
}

/** Keeps the step's recorded documents as what the next step of its aggregate reads. */
export function remember(step: HistoryStep, stores: Stores): void {
  if (step.stream === 'run') stores.runs.set(step.id, step.state);
  else if (step.stream === 'interrupt') stores.interrupts.set(step.id, step.state);
  else {
    const turns = [...(stores.conversations.get(step.id)?.turns ?? []), ...step.turns];
    stores.conversations.set(step.id, { doc: step.state, turns });
  }
}
