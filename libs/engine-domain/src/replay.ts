import { DomainError, ownValue } from '@openwop/kernel';
import {
  comparableDifference,
  comparableRunEvent,
  isPauseRequestRecord,
  rebaseRunId,
  TERMINAL_RUN_EVENT_TYPES,
  type ComparableRunEvent,
  type ForkMode,
  type ForkResolution,
  type RecordedConversationEvent,
  type RunEventDoc,
  type RunEventType,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { BUILTIN_NODE_REGISTRY } from './builtin-nodes';
import { EventWriter, runEventId } from './event-writer';
import { drive, type NodeRegistry } from './executor';
import { emitResolution, type OpenInterruptRequest } from './interrupt-events';
import { emitTimerFired } from './timer-events';
import {
  childStartedIn,
  RunAlreadyExists,
  runOptions,
  type CommandContext,
  type RunDecision,
} from './run.decider';
import { newRunRecord, type RunRecord, type RunState } from './run.state';

/**
 * Start run `runId` as a fork of `sourceRunId` (`replay.md`): events `< fromSeq` of the source are
 * fixed history, copied; the rest is executed again by the current code. Every interrupt key in
 * `resolutions` is answered from it, so nobody is asked again.
 */
export interface ForkRun {
  readonly type: 'ForkRun';
  readonly runId: string;
  readonly sourceRunId: string;
  readonly mode: ForkMode;
  readonly fromSeq: number;
  /** The definition the source run is pinned to. */
  readonly workflow: WorkflowDefinition;
  readonly inputs: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  /** The source's protocol major when `2` (its `run.started`): a fork keeps it (ADR 0041). */
  readonly protocolMajor?: 2;
  /** The source's events `0 .. fromSeq - 1`, in order. */
  readonly history: readonly RunEventDoc[];
  /** Source interrupt keys (source run id) and how they were resolved. */
  readonly resolutions: Readonly<Record<string, ForkResolution>>;
  /** `replay`: the comparable projection of the source's events `>= fromSeq`; ignored in `branch`. */
  readonly expected: readonly ComparableRunEvent[];
  /** The source's recorded conversations (source conversationId → events), re-folded when the fork answers them from the record. */
  readonly conversations?: Readonly<Record<string, readonly RecordedConversationEvent[]>>;
  /** `tenant` and `principal` are the source run's owner (`replay.md` §Fork ownership). */
  readonly context: CommandContext;
}

/** `run.started.payload.forkedFrom` of a fork. */
export interface ForkedFrom {
  readonly runId: string;
  readonly fromSeq: number;
  readonly mode: ForkMode;
}

/**
 * Decides the first stretch of a fork: `run.started` (with `forkedFrom`), the fixed history
 * re-stamped for the new run (run-id-derived ids and keys rebased), then execution until the fork
 * waits or ends, exactly as a started run. A wait the history ends in is answered from the recorded
 * resolution when there is one, else the fork waits on it too (its `interrupt.open` is returned).
 *
 * In `replay` mode each event the fork emits from `fromSeq` on is compared with the source's at the
 * same place (comparable projections, see `REPLAY_UNCOMPARED_EVENT_TYPES`); the first difference is
 * reported once as `replay.diverged` and execution continues (`replay.md` §Failure surfaces).
 *
 * @throws {@link RunAlreadyExists}, or a `validation_error` {@link DomainError} for a history that is
 * not the source's first `fromSeq` events or a workflow with node types the registry lacks.
 */
export async function decideFork(
  command: ForkRun,
  state: RunState,
  nodes: NodeRegistry = BUILTIN_NODE_REGISTRY,
): Promise<RunDecision> {
  if (state.status !== 'none') throw new RunAlreadyExists(command.runId);
  const { runId, sourceRunId, workflow, context, history, fromSeq, mode } = command;
  assertRunnable(workflow, nodes);
  assertHistory(history, fromSeq);
  const rebase = <T>(v: T): T => rebaseRunId(v, sourceRunId, runId);
  // A recorded value naming the source run (a conversation's closure: its conversationId and turns) names the fork.
  const resolutions = Object.fromEntries(
    Object.entries(command.resolutions).map(([k, r]) => [
      rebase(k),
      'value' in r ? { ...r, value: rebase(r.value) } : r,
    ]),
  );
  const record: RunRecord = {
    ...newRunRecord({
      runId,
      workflow,
      inputs: command.inputs,
      options: runOptions(command.metadata),
      tenant: context.tenant,
      principal: context.principal,
    }),
    resolutions: Object.fromEntries(
      Object.entries(resolutions).map(([k, r]) => [
        k,
        'timeout' in r ? { timeout: true as const } : { value: r.value ?? null },
      ]),
    ),
  };
  const w = new ForkWriter(
    record,
    context.commandId,
    context.now,
    sourceRunId,
    mode === 'replay' ? command.expected : undefined,
    Object.fromEntries(
      Object.entries(command.conversations ?? {}).map(([id, events]) => [rebase(id), rebase(events)]),
    ),
  );
  const forkedFrom: ForkedFrom = { runId: sourceRunId, fromSeq, mode };
  w.comparing = fromSeq === 0;
  w.emit('run.started', undefined, {
    workflowId: workflow.id,
    inputs: command.inputs,
    transport: 'rest',
    owner: { tenant: context.tenant, principal: context.principal },
    ...(command.metadata ? { metadata: command.metadata } : {}),
    // A fork is a run of its source's major, whatever major asked for it (ADR 0041).
    ...(command.protocolMajor === 2 ? { protocolMajor: 2 } : {}),
    forkedFrom,
  });
  for (const e of history.slice(1)) {
    // An operator's pause of the source is not the fork's: re-folded as a no-op (rest-endpoints.md §pause).
    if (e.type === 'run.paused' || e.type === 'run.resumed' || isPauseRequestRecord(e)) continue;
    w.emit(e.type, e.nodeId ?? undefined, rebase(e.payload));
  }
  w.comparing = true;

  let openInterrupt: OpenInterruptRequest | undefined;
  let resumedKey: string | undefined;
  const pending = w.state.pending;
  if (pending) {
    const recorded = ownValue(resolutions, pending.key);
    if (recorded) {
      const timeout = 'timeout' in recorded;
      emitResolution(w, pending, {
        outcome: timeout ? 'timeout' : 'resolved',
        ...(timeout ? {} : { resumeValue: recorded.value }),
        resolvedBy: recorded.resolvedBy ?? context.principal,
        resolvedAt: recorded.resolvedAt ?? context.now,
      });
      resumedKey = pending.key;
    } else if (w.state.status === 'suspended') {
      // Nobody answered it in the source either: the fork waits on it, and the interrupt service must hold it.
      openInterrupt = { runId, ...pending };
    }
  }
  const timer = w.state.timer;
  if (timer && ownValue(resolutions, timer.key)) {
    // The history ends inside a delay the source saw fire: the fork does not wait for it again.
    emitTimerFired(w, timer);
    resumedKey = timer.key;
  }
  openInterrupt ??= await drive(w, nodes, resumedKey);
  w.finish();
  const next = w.result();
  // A node of the fork that started a child run: the host sends the child's run.start, as for any run.
  const startChild = next.status === 'none' ? undefined : childStartedIn(next, w.events);
  return {
    events: w.events,
    state: next,
    ...(openInterrupt ? { openInterrupt } : {}),
    ...(startChild ? { startChild } : {}),
  };
}

const TERMINAL: readonly string[] = TERMINAL_RUN_EVENT_TYPES;

/**
 * An {@link EventWriter} that, while `comparing` and given the source's `expected` events, checks
 * each comparable event it writes against the next expected one and reports the first difference.
 */
class ForkWriter extends EventWriter {
  comparing = false;
  private cursor = 0;
  private diverged = false;

  constructor(
    record: RunRecord,
    commandId: string,
    now: string,
    private readonly sourceRunId: string,
    private readonly expected: readonly ComparableRunEvent[] | undefined,
    /** The source's conversations, rebased to the fork's run id, by conversationId. */
    private readonly conversations: Readonly<Record<string, readonly RecordedConversationEvent[]>> = {},
  ) {
    super(record, commandId, now);
  }

  override emit(type: RunEventType, nodeId: string | undefined, payload: unknown): RunEventDoc {
    if (nodeId !== undefined && (type === 'node.completed' || type === 'node.failed')) this.refold(nodeId);
    return this.write(type, nodeId, payload);
  }

  /**
   * RFC 0005 §G: a node that ends having answered its conversation from the record (no turn was
   * taken in the fork) re-folds the source's turns of that conversation verbatim, before its end:
   * the fork's transcript and `messages` channel are then the source's. Only turns the fork's
   * state does not hold yet are written, so a fork whose history already copied some adds the rest.
   */
  private refold(nodeId: string): void {
    const visit = this.state.active?.nodeId === nodeId ? this.state.active.visit : 0;
    const conversationId = `${this.state.runId}:${nodeId}:${visit}`;
    const recorded = ownValue(this.conversations, conversationId);
    if (!recorded) return;
    for (const e of recorded) {
      const view = this.state.conversations?.[conversationId];
      const turnIndex = (e.payload as { turnIndex?: unknown } | null)?.turnIndex;
      const fresh =
        e.type === 'conversation.opened'
          ? !view
          : view?.status === 'open' && turnIndex === view.nextTurnIndex;
      if (fresh) this.write(e.type, e.nodeId ?? nodeId, e.payload);
    }
  }

  private write(type: RunEventType, nodeId: string | undefined, payload: unknown): RunEventDoc {
    if (!this.expected || !this.comparing || this.diverged) return super.emit(type, nodeId, payload);
    if (type === 'replay.diverged' || type === 'replay.divergedAtRefusal') {
      // The executor found a divergence of its own (a resumed node that no longer asks its key): one report is enough.
      this.diverged = true;
      return super.emit(type, nodeId, payload);
    }
    const sequence = this.state.lastSequence + 1;
    const replayed = comparableRunEvent({
      eventId: runEventId(this.state.runId, sequence),
      runId: this.state.runId,
      ...(nodeId ? { nodeId } : {}),
      type,
      payload,
      timestamp: this.now,
      sequence,
      schemaVersion: 1,
    });
    if (!replayed) return super.emit(type, nodeId, payload);
    const original = this.expected[this.cursor];
    const kind = comparableDifference(original, replayed);
    if (!kind) {
      this.cursor++;
      return super.emit(type, nodeId, payload);
    }
    this.diverged = true;
    if (TERMINAL.includes(type)) {
      // The run's terminal event stays its last: report first, naming the event about to be written.
      this.report(kind, original, replayed.type, nodeId, sequence + 1);
      return super.emit(type, nodeId, payload);
    }
    const event = super.emit(type, nodeId, payload);
    this.report(kind, original, replayed.type, nodeId, event.sequence);
    return event;
  }

  /**
   * Ends the comparison of the stretch: a fork that waits on an interrupt while the source went on
   * (the code now asks something the source was never asked) misses the source's next event.
   */
  finish(): void {
    if (!this.expected || this.diverged || this.state.status !== 'suspended') return;
    const original = this.expected[this.cursor];
    if (!original) return;
    this.diverged = true;
    const waiting = this.state.pending;
    this.report('missing', original, original.type, waiting?.nodeId, this.state.lastSequence, {
      ...(waiting ? { waitingOnKey: waiting.key } : {}),
    });
  }

  private report(
    kind: string,
    original: ComparableRunEvent | undefined,
    point: RunEventType,
    nodeId: string | undefined,
    replaySequence: number,
    extra: Record<string, unknown> = {},
  ): void {
    super.emit('replay.diverged', nodeId, {
      sourceRunId: this.sourceRunId,
      atSequence: replaySequence,
      divergenceKind: kind,
      divergencePoint: point,
      replayEventId: runEventId(this.state.runId, replaySequence),
      ...(original ? { originalEventId: original.eventId, originalSequence: original.sequence } : {}),
      ...(nodeId ? { nodeId } : {}),
      ...extra,
    });
  }
}

function assertRunnable(workflow: WorkflowDefinition, nodes: NodeRegistry): void {
  const unknown = workflow.nodes.find((n) => !nodes.has(n.typeId));
  if (unknown) {
    throw new DomainError('validation_error', `node type ${unknown.typeId} is not supported by this host`, {
      nodeId: unknown.id,
      typeId: unknown.typeId,
    });
  }
}

function assertHistory(history: readonly RunEventDoc[], fromSeq: number): void {
  const gap = history.findIndex((e, i) => e.sequence !== i);
  if (history.length !== fromSeq || gap >= 0 || (fromSeq > 0 && history[0]!.type !== 'run.started')) {
    throw new DomainError(
      'validation_error',
      `a fork from sequence ${fromSeq} needs the source's events 0..${fromSeq - 1}`,
      {
        fromSeq,
        historyLength: history.length,
      },
    );
  }
}
