import {
  forkSourceOf,
  runStateFromDocument,
  type CommandContext as RunContext,
  type FollowUp,
  type ForkRun,
  type RunCommand,
  type RunDecision,
  type RunRecord,
} from '@openwop/engine-domain';
import type { ForkMode } from '@openwop/contracts';
import {
  closureOf,
  conversationFromDocument,
  conversationOfStored,
  converseCommand,
  initialConversationState,
  type ConversationCommand,
  type ConversationEvent,
  type ConversationState,
  type TurnInput,
} from '@openwop/conversation-domain';
import {
  interruptStateFromDocument,
  resumeDecisionOf,
  type CommandContext as InterruptContext,
  type InterruptCommand,
  type InterruptState,
} from '@openwop/interrupt-domain';
import { asJson } from './divergence';
import {
  currentVersions,
  HISTORY_FORMAT,
  runEventsOf,
  type HistoryStep,
  type RecordedHistory,
} from './history';
import { decideStep, newStores, remember, type StepInput } from './replay';

const TENANT = 't1';
const OWNER = 'owner';
const EPOCH = Date.parse('2026-11-21T09:00:00.000Z');

/** How a scripted agent answers: its reply to the `n`th turn it is asked for. */
export type AgentScript = (speakerId: string, n: number) => unknown;

/**
 * A host in miniature, for recording: it drives today's deciders as the services do (the engine's
 * run decider, the interrupt service's interrupt and conversation deciders, the glue between them
 * from the domain libs) and writes every step down. Pure: the clock is a counter, ids derive from it.
 */
export class Recorder {
  private readonly steps: HistoryStep[] = [];
  private readonly stores = newStores();
  private tick = 0;
  private readonly asked = new Map<string, number>();
  private readonly followUps: FollowUp[] = [];

  constructor(
    private readonly scenario: string,
    private readonly description: string,
    private readonly agent: AgentScript = (speakerId, n) => `${speakerId} reply ${n}`,
  ) {}

  /** The history recorded so far. */
  history(): RecordedHistory {
    return asJson({
      format: HISTORY_FORMAT,
      scenario: this.scenario,
      description: this.description,
      versions: currentVersions(),
      steps: this.steps,
    }) as RecordedHistory;
  }

  /** The next instant of the recorder's clock (one second a step). */
  now(): string {
    return new Date(EPOCH + 1000 * this.tick++).toISOString();
  }

  runContext(principal = OWNER): RunContext {
    const now = this.now();
    return { commandId: `cmd-${this.tick}`, now, tenant: TENANT, principal };
  }

  interruptContext(principal: string): InterruptContext {
    const now = this.now();
    return { commandId: `cmd-${this.tick}`, now, tenant: TENANT, principal };
  }

  /** A run's state as the engine stored it last. */
  run(runId: string): RunRecord {
    const state = runStateFromDocument(this.stores.runs.get(runId));
    if (state.status === 'none') throw new Error(`${this.scenario}: no run ${runId}`);
    return state;
  }

  /** An interrupt's state as the interrupt service stored it last. */
  interrupt(interruptId: string): InterruptState {
    return interruptStateFromDocument(this.stores.interrupts.get(interruptId));
  }

  /** The interrupt the run waits on. */
  pendingInterruptOf(runId: string): string {
    const pending = this.run(runId).pending;
    if (!pending) throw new Error(`${this.scenario}: run ${runId} waits on no interrupt`);
    return pending.interruptId;
  }

  /** Starts a run and follows its decision (an interrupt opens, agents answer). */
  async start(
    runId: string,
    workflow: Extract<RunCommand, { type: 'StartRun' }>['workflow'],
    inputs: Record<string, unknown> = {},
  ): Promise<void> {
    await this.decideRun({ type: 'StartRun', runId, workflow, inputs, context: this.runContext() });
    await this.drain();
  }

  /** A resolve at the interrupt service, then (once the interrupt is decided) the engine's resume. */
  async resolve(runId: string, nodeId: string, resumeValue: unknown, principal = 'alice'): Promise<void> {
    const interruptId = this.pendingInterruptOf(runId);
    await this.decideInterrupt(interruptId, {
      type: 'ResolveInterrupt',
      runId,
      nodeId,
      resumeValue,
      via: 'api',
      context: this.interruptContext(principal),
    });
    await this.drain();
  }

  /** The interrupt's deadline passed (the durable timer fired). */
  async expire(runId: string): Promise<void> {
    const interruptId = this.pendingInterruptOf(runId);
    await this.decideInterrupt(interruptId, {
      type: 'ExpireInterrupt',
      interruptId,
      context: this.interruptContext('system:timer'),
    });
    await this.drain();
  }

  /** `run.cancel`: the interrupt service cancels the wait, then the engine cancels the run. */
  async cancel(runId: string, reason: string): Promise<void> {
    const pending = this.run(runId).pending;
    if (pending)
      await this.decideInterrupt(pending.interruptId, {
        type: 'CancelInterrupt',
        reason,
        context: this.interruptContext(OWNER),
      });
    await this.decideRun({ type: 'CancelRun', runId, reason, context: this.runContext() });
    await this.drain();
  }

  /** A person's turn (or close) in the conversation the run waits on, as the conversation gate takes it. */
  async converse(
    runId: string,
    nodeId: string,
    command:
      | { operation: 'exchange'; turn: TurnInput }
      | { operation: 'close'; outcome?: unknown; turn?: TurnInput; reason?: string },
  ): Promise<void> {
    const interruptId = this.pendingInterruptOf(runId);
    const now = this.now();
    const decided: ConversationCommand =
      command.operation === 'exchange'
        ? { type: 'ExchangeTurn', turn: command.turn, now }
        : {
            type: 'CloseConversation',
            outcome: command.outcome,
            ...(command.turn ? { finalTurn: command.turn } : {}),
            ...(command.reason ? { reason: command.reason } : {}),
            now,
          };
    await this.decideConversation(runId, nodeId, interruptId, decided);
    await this.drain();
  }

  /** Forks `sourceRunId` from `fromSeq` in `mode` as the engine answers `run.fork`, from the source's own log. */
  async fork(runId: string, sourceRunId: string, fromSeq: number, mode: ForkMode): Promise<void> {
    const source = forkSourceOf(runEventsOf({ steps: this.steps }, sourceRunId), fromSeq, mode);
    const pinned = this.run(sourceRunId);
    const command: ForkRun = {
      type: 'ForkRun',
      runId,
      sourceRunId,
      mode,
      fromSeq,
      workflow: pinned.workflow,
      inputs: source.started.inputs ?? {},
      ...(source.started.metadata ? { metadata: source.started.metadata } : {}),
      ...(source.started.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
      history: source.history,
      resolutions: source.resolutions,
      expected: source.expected,
      conversations: source.conversations,
      context: { ...this.runContext(), principal: pinned.principal },
    };
    await this.decideRun(command);
    await this.drain();
  }

  private async decideRun(command: RunCommand | ForkRun): Promise<RunDecision> {
    const { decision } = await this.step({ stream: 'run', id: command.runId, command });
    const d = decision as RunDecision;
    if (d.openInterrupt) {
      const {
        conversation,
        runId,
        nodeId,
        interruptId,
        kind,
        key,
        data,
        resumeSchema,
        timeoutMs,
        requestedAt,
      } = d.openInterrupt;
      await this.decideInterrupt(interruptId, {
        type: 'OpenInterrupt',
        interrupt: {
          interruptId,
          runId,
          nodeId,
          kind,
          key,
          data,
          requestedAt,
          ...(resumeSchema ? { resumeSchema } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        runCancelled: false,
        context: this.interruptContext(OWNER),
      });
      if (conversation) await this.step({ stream: 'conversation', id: interruptId, opened: conversation });
    }
    // Follow-ups travel through the outbox: they are taken up after the decision that asked for them.
    this.followUps.push(...(d.followUps ?? []));
    return d;
  }

  private async decideInterrupt(interruptId: string, command: InterruptCommand): Promise<void> {
    await this.step({ stream: 'interrupt', id: interruptId, command });
    const resume = resumeDecisionOf(this.interrupt(interruptId));
    if (!resume || command.type === 'OpenInterrupt' || command.type === 'CancelInterrupt') return;
    await this.decideRun({
      type: 'ResumeRun',
      runId: resume.runId,
      interruptId: resume.interruptId,
      outcome: resume.outcome,
      ...(resume.resumeValue !== undefined ? { resumeValue: resume.resumeValue } : {}),
      resolvedBy: resume.resolvedBy,
      resolvedAt: resume.resolvedAt,
      ...(resume.notes ? { notes: resume.notes } : {}),
      context: this.runContext('system:interrupt'),
    });
  }

  /** The conversation gate: decide, tell the engine each event (`run.converse`), resume the run on close. */
  private async decideConversation(
    runId: string,
    nodeId: string,
    interruptId: string,
    command: ConversationCommand,
  ): Promise<void> {
    const { decision } = await this.step({ stream: 'conversation', id: interruptId, command });
    const home = { interruptId, runId, nodeId, tenant: TENANT };
    for (const event of decision as ConversationEvent[]) {
      const converse = converseCommand(event, home, this.now(), {
        id: `cmd-${this.tick}`,
        correlationId: runId,
      });
      const d = converse.data;
      await this.decideRun({
        type: 'RecordConversation',
        runId: d.runId,
        nodeId: d.nodeId,
        interruptId: d.interruptId,
        eventType: d.type,
        payload: d.payload,
        context: this.runContext('system:conversation'),
      });
    }
    const state = this.conversation(interruptId);
    if (
      (decision as ConversationEvent[]).some((e) => e.type === 'conversation.closed') &&
      state.status === 'closed'
    ) {
      await this.decideInterrupt(interruptId, {
        type: 'ResolveInterrupt',
        runId,
        nodeId,
        resumeValue: closureOf(state),
        context: this.interruptContext('system:conversation'),
      });
    }
  }

  /** Takes up the follow-ups the decisions so far asked for, in order, until none is left. */
  private async drain(): Promise<void> {
    for (let f = this.followUps.shift(); f; f = this.followUps.shift()) await this.followUp(f);
  }

  /** What the engine's agent-turn handler does with a follow-up: a scripted reply, or the policy's close. */
  private async followUp(f: FollowUp): Promise<void> {
    if (f.kind === 'close') {
      await this.decideConversation(f.runId, f.nodeId, f.interruptId, {
        type: 'CloseConversation',
        outcome: f.outcome,
        reason: f.reason,
        now: this.now(),
      });
      return;
    }
    const n = this.asked.get(f.speakerId) ?? 0;
    this.asked.set(f.speakerId, n + 1);
    const turn: TurnInput = {
      messageId: `${f.conversationId}:agent:${f.speakerId}:${f.afterTurnIndex}`,
      from: f.speakerId,
      role: 'agent',
      speakerId: f.speakerId,
      content: this.agent(f.speakerId, n),
    };
    await this.decideConversation(f.runId, f.nodeId, f.interruptId, {
      type: 'ExchangeTurn',
      turn,
      now: this.now(),
    });
  }

  private conversation(interruptId: string): ConversationState {
    const held = this.stores.conversations.get(interruptId);
    return held?.doc
      ? conversationOfStored(conversationFromDocument(held.doc), held.turns)
      : initialConversationState();
  }

  /** Decides one step, writes it down, and stores its state for the next. */
  private async step(input: StepInput): Promise<{ decision: unknown }> {
    const decided = await decideStep(input, this.stores);
    const step = asJson(
      input.stream === 'run'
        ? { ...input, decision: decided.decision, state: decided.state }
        : input.stream === 'interrupt'
          ? { ...input, events: decided.decision, state: decided.state }
          : { ...input, events: decided.decision, turns: decided.turns ?? [], state: decided.state },
    ) as HistoryStep;
    this.steps.push(step);
    remember(step, this.stores);
    return { decision: decided.decision };
  }
}
