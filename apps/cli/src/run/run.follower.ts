import { text } from '../util/text';
import { isTerminalRunStatus } from '@openwop/contracts';
import type { OpenWopClient, RunSnapshotBody, RunStreamEvent } from '@openwop/sdk';
import { ExitCode, type ExitCodeValue } from '../util/exit-codes';
import type { Output } from '../util/output';
import { ConversationSession } from './conversation.session';
import {
  answerApproval,
  answerClarification,
  answerWithJson,
  type Answer,
  type PresetAnswers,
} from './interrupt-answers';
import type { Interruption } from './interruption';
import type { LineInput } from './line-input';
import { describeEvent } from './run-event.describer';
import { runStateText, waitingFor } from './run-state';

export interface FollowOptions {
  readonly cancelOnInterrupt: boolean;
  readonly preset: PresetAnswers;
}

interface EventDoc {
  readonly type: string;
  readonly nodeId?: string;
  readonly sequence?: number;
  readonly payload: Record<string, unknown>;
}

/**
 * What the follower does after an event: go on, stop (Ctrl+C), or stop because the input ended
 * while an answer was wanted (piped input ran out: not an interrupt, and not a failure).
 */
type Step = 'continue' | 'stop' | 'input-ended';

const TERMINAL: Readonly<Record<string, ExitCodeValue>> = {
  'run.completed': ExitCode.ok,
  'run.failed': ExitCode.runFailed,
  'run.cancelled': ExitCode.runFailed,
};

/**
 * Follows a run to its end over SSE (`updates` and `messages` modes), printing progress and
 * answering what it waits for: approvals, clarifications and other interrupts are asked for (or
 * answered from flags), external events print their token and callback URL, conversation steps
 * open a {@link ConversationSession}. Ctrl+C leaves the run durable (or cancels it with
 * `--cancel-on-interrupt`), exit 130; input that ends where an answer is wanted leaves it waiting,
 * exit 4.
 */
export class RunFollower {
  private readonly session: ConversationSession;

  constructor(
    private readonly client: OpenWopClient,
    private readonly runId: string,
    private readonly out: Output,
    private readonly input: LineInput,
    private readonly interruption: Interruption,
    private readonly options: FollowOptions,
  ) {
    this.session = new ConversationSession(client, runId, out, input, interruption);
  }

  async follow(): Promise<ExitCodeValue> {
    const stream = this.client.streamEvents(this.runId, {
      streamMode: 'updates,messages',
      signal: this.interruption.signal,
    });
    for await (const frame of stream) {
      const doc = eventDocOf(frame);
      if (!doc) continue;
      this.out.record({ type: 'event', runId: this.runId, event: doc });
      const line = describeEvent(doc, this.out);
      if (line) this.out.line(line);
      const terminal = TERMINAL[doc.type];
      if (terminal !== undefined) return this.finish(doc, terminal);
      const step = await this.react(doc);
      if (step === 'input-ended' && !this.interruption.requested) return this.leave('input-ended');
      if (step === 'stop' || this.interruption.requested) break;
    }
    if (this.interruption.requested) return this.leave('interrupted');
    // The stream ended without a terminal event (it does so only when the run already ended).
    const run = await this.client.getRun(this.runId);
    const code =
      run.status === 'completed'
        ? ExitCode.ok
        : isTerminalRunStatus(run.status)
          ? ExitCode.runFailed
          : ExitCode.api;
    this.out.record({ type: 'result', runId: this.runId, status: run.status });
    return code;
  }

  private async react(doc: EventDoc): Promise<Step> {
    const p = doc.payload;
    switch (doc.type) {
      case 'ai.message.chunk':
        this.session.onChunk(p);
        return 'continue';
      case 'conversation.opened':
        this.session.onOpened(doc.nodeId, p);
        return 'continue';
      case 'conversation.exchanged': {
        const turn = (p.turn ?? {}) as {
          role?: string;
          turnIndex?: number;
          content?: unknown;
          messageId?: string;
        };
        if (turn.role === 'user') this.session.onUserTurn(turn);
        if (turn.role !== 'agent' || !doc.nodeId) return 'continue';
        return this.session.onAgentTurn(doc.nodeId, text(p.conversationId), {
          ...turn,
          turnIndex: turn.turnIndex ?? (p.turnIndex as number | undefined),
        });
      }
      case 'node.suspended':
        return this.onSuspended(doc);
      default:
        return 'continue';
    }
  }

  /** A node waits on an interrupt: answer it when it is still the pending one (an attach replays old ones). */
  private async onSuspended(doc: EventDoc): Promise<Step> {
    const kind = text(doc.payload.kind);
    if (kind.startsWith('conversation')) return 'continue';
    const interruptId = doc.payload.interruptId;
    let run = await this.client.getRun(this.runId);
    const pending = run.interrupt;
    if (!pending || pending.interruptId !== interruptId) return 'continue';
    const data = (pending.data ?? {}) as Record<string, unknown>;
    const nodeId = pending.nodeId;
    if (kind === 'external-event') {
      run = await this.withCallbackUrl(run);
      this.printExternalEvent(nodeId, data, run);
      return 'continue';
    }
    for (let again = false; ; again = true) {
      const answer = await this.ask(kind, data, again);
      if (answer === null) return this.interruption.requested ? 'stop' : 'input-ended';
      try {
        const result = await this.interruption.critical(() =>
          this.client.resolveInterrupt(this.runId, nodeId, answer.value),
        );
        if (result === undefined) return 'stop';
        this.out.record({ type: 'answered', runId: this.runId, nodeId, status: result.status });
        // A preset answer that only records (an `ask`, one vote of a quorum): wait for the others.
        if (result.status !== 'pending' || this.hasPreset(kind)) return 'continue';
        this.out.line(this.out.paint('dim', '  recorded; the gate is still waiting for a decision'));
      } catch (error) {
        // A refused answer typed by a person is asked again; one given by flags cannot improve.
        if (this.hasPreset(kind) || !isRefusal(error)) throw error;
        this.out.error(error instanceof Error ? error.message : String(error));
      }
    }
  }

  private hasPreset(kind: string): boolean {
    const p = this.options.preset;
    if (p.value !== undefined) return true;
    return kind === 'approval' ? p.approval !== undefined : false;
  }

  private ask(kind: string, data: Record<string, unknown>, again: boolean): Promise<Answer> {
    const { out, input, options } = this;
    const signal = this.interruption.signal;
    switch (kind) {
      case 'approval':
        return answerApproval(data, out, input, signal, options.preset, again);
      case 'clarification':
        return answerClarification(data, out, input, signal, options.preset);
      default:
        return answerWithJson(kind, data, out, input, signal, options.preset);
    }
  }

  /**
   * The token service mints the signed tokens just after the suspension: wait for them briefly. The
   * resolving `callbackUrl` comes only to a key holding `approvals:respond`; any key sees `inspectUrl`.
   */
  private async withCallbackUrl(run: RunSnapshotBody): Promise<RunSnapshotBody> {
    const deadline = Date.now() + 5_000;
    while (
      !run.interrupt?.inspectUrl &&
      !run.interrupt?.tokenExpired &&
      Date.now() < deadline &&
      !this.interruption.signal.aborted
    ) {
      await new Promise((r) => setTimeout(r, 100));
      run = await this.client.getRun(this.runId);
    }
    return run;
  }

  private printExternalEvent(nodeId: string, data: Record<string, unknown>, run: RunSnapshotBody): void {
    const i = run.interrupt;
    this.out.line(
      this.out.paint('bold', `Waiting for external event ${text(data.eventType)} at step ${nodeId}`),
    );
    this.out.line(`  correlation:  ${JSON.stringify(data.correlation ?? {})}`);
    if (i?.callbackUrl) this.out.line(`  callback URL: ${i.callbackUrl}`);
    if (i?.interruptToken) this.out.line(`  token:        ${i.interruptToken}`);
    this.out.line(
      `  the outside system POSTs {"resumeValue": {"eventPayload": …}} to the callback URL (no API key needed)`,
    );
    this.out.record({
      type: 'external-event',
      runId: this.runId,
      nodeId,
      eventType: data.eventType,
      correlation: data.correlation,
      callbackUrl: i?.callbackUrl,
      token: i?.interruptToken,
      expiresAt: i?.tokenExpiresAt,
    });
  }

  private finish(doc: EventDoc, code: ExitCodeValue): ExitCodeValue {
    this.out.record({ type: 'result', runId: this.runId, status: doc.type.slice('run.'.length) });
    return code;
  }

  /**
   * Ctrl+C (`interrupted`): cancel (`--cancel-on-interrupt`) or leave the run where it stands, exit
   * 130. End of input where an answer is wanted (`input-ended`): leave the run waiting, exit 4 (the
   * run is not cancelled, whatever `--cancel-on-interrupt` says: nobody pressed Ctrl+C).
   */
  private async leave(reason: 'interrupted' | 'input-ended'): Promise<ExitCodeValue> {
    this.out.endLine();
    if (reason === 'interrupted' && this.options.cancelOnInterrupt) {
      const r = await this.client.cancelRun(this.runId, 'interrupted from wop');
      this.out.line(`run ${this.runId} ${r.status}`);
      this.out.record({ type: 'interrupted', runId: this.runId, status: r.status });
      return ExitCode.interrupted;
    }
    const run = await this.client.getRun(this.runId);
    const why = reason === 'input-ended' ? 'input ended; ' : '';
    this.out.line(`${why}run ${this.runId} ${runStateText(run)}; continue with: wop attach ${this.runId}`);
    this.out.record({ type: reason, runId: this.runId, status: run.status, ...waitingFor(run) });
    return reason === 'input-ended' ? ExitCode.inputEnded : ExitCode.interrupted;
  }
}

/** The run event of a frame (frames of a mixed-mode stream are labelled by mode; `data` is the event). */
function eventDocOf(frame: RunStreamEvent): EventDoc | undefined {
  const data = frame.data as Partial<EventDoc> & Record<string, unknown>;
  if (typeof data !== 'object' || data === null) return undefined;
  if (typeof data.type === 'string' && typeof data.payload === 'object' && data.payload !== null)
    return data as EventDoc;
  // A bare payload: `ai.message.chunk` data (labelled `messages` in a mixed-mode stream).
  return {
    type: frame.event === 'messages' ? 'ai.message.chunk' : frame.event,
    ...(typeof data.nodeId === 'string' ? { nodeId: data.nodeId } : {}),
    payload: data,
  };
}

function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return (
    typeof status === 'number' &&
    status >= 400 &&
    status < 500 &&
    status !== 401 &&
    status !== 403 &&
    status !== 404
  );
}
