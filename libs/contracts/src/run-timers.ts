import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import type { RunEventDoc } from './run-event';

/** `log.appended.fields.event` of the record that a node started waiting on a durable timer. */
export const TIMER_SCHEDULED = 'timer.scheduled';
/** `log.appended.fields.event` of the record that the timer fell due and the node may go on. */
export const TIMER_FIRED = 'timer.fired';

/** A timer record of the run log: which timer, and (scheduled) when it is due. */
export interface TimerRecord {
  readonly event: typeof TIMER_SCHEDULED | typeof TIMER_FIRED;
  readonly timerKey: string;
  readonly delayMs?: number;
  readonly dueAt?: string;
}

/**
 * The timer record an event carries, or `undefined`. The spec's event catalogue has no timer
 * events, so the engine records a durable wait as a node-scoped `log.appended` whose `fields.event`
 * is {@link TIMER_SCHEDULED} or {@link TIMER_FIRED} (the same way it records conversation silences).
 */
export function timerRecordOf(event: Pick<RunEventDoc, 'type' | 'payload'>): TimerRecord | undefined {
  if (event.type !== 'log.appended') return undefined;
  const fields = (event.payload as { fields?: Record<string, unknown> } | null)?.fields;
  if (!fields || (fields.event !== TIMER_SCHEDULED && fields.event !== TIMER_FIRED)) return undefined;
  if (typeof fields.timerKey !== 'string') return undefined;
  return {
    event: fields.event,
    timerKey: fields.timerKey,
    ...(typeof fields.delayMs === 'number' ? { delayMs: fields.delayMs } : {}),
    ...(typeof fields.dueAt === 'string' ? { dueAt: fields.dueAt } : {}),
  };
}

/**
 * `run.timer`: the durable timer `timerKey` of run `runId` fell due. Sent by the engine's timer
 * poller (outbox, in the transaction that claims the timer row); its id derives from the run and key,
 * so the timer is decided once even if it were claimed twice. A run that no longer waits on that
 * timer (cancelled, already fired) ignores it.
 */
export class FireTimerData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 512) timerKey!: string;
}

/** The command id of the firing of timer `timerKey` of run `runId`. */
export function fireTimerCommandId(runId: string, timerKey: string): string {
  return `timer:${runId}:${timerKey}`;
}

/** `drainPolicy` of `POST /v1/runs/{runId}:pause` (rest-endpoints.md). */
export const PAUSE_DRAIN_POLICIES = ['immediate', 'drain-current-node'] as const;
export type PauseDrainPolicy = (typeof PAUSE_DRAIN_POLICIES)[number];

/**
 * `fields.event` of the run-scoped `log.appended` that records a `:pause` with `drain-current-node`
 * arriving while a node executes; `run.paused` follows once that node reached a terminal. Like
 * `run.paused`, it is the operator's doing, not the workflow's: a fork neither copies nor compares it.
 */
export const PAUSE_REQUESTED = 'pause.requested';

/** Whether `event` is the record of a drain-current-node pause request ({@link PAUSE_REQUESTED}). */
export function isPauseRequestRecord(event: Pick<RunEventDoc, 'type' | 'payload'>): boolean {
  if (event.type !== 'log.appended') return false;
  return (event.payload as { fields?: { event?: unknown } } | null)?.fields?.event === PAUSE_REQUESTED;
}

/** Longest `reason` of a pause or resume: it is stored on the `run.paused` / `run.resumed` event. */
export const MAX_PAUSE_REASON_LENGTH = 1000;

/** `run.pause`: an operator pauses run `runId` (`POST /v1/runs/{runId}:pause`). */
export class PauseRunData {
  @IsString() @Length(1, 128) runId!: string;
  @IsOptional() @IsString() @MaxLength(MAX_PAUSE_REASON_LENGTH) reason?: string;
  @IsIn(PAUSE_DRAIN_POLICIES) drainPolicy!: PauseDrainPolicy;
}

/** `run.unpause`: an operator resumes the paused run `runId` (`POST /v1/runs/{runId}:resume`). */
export class UnpauseRunData {
  @IsString() @Length(1, 128) runId!: string;
  @IsOptional() @IsString() @MaxLength(MAX_PAUSE_REASON_LENGTH) reason?: string;
}

export type FireTimerCommand = CommandEnvelope<'run.timer', FireTimerData>;
export type PauseRunCommand = CommandEnvelope<'run.pause', PauseRunData>;
export type UnpauseRunCommand = CommandEnvelope<'run.unpause', UnpauseRunData>;

/** The reply to `run.pause` / `run.unpause`. */
export interface RunControlResult {
  readonly runId: string;
  readonly status: string;
  /** `pausedAt` of a pause, `resumedAt` of a resume. */
  readonly at: string;
  /** Sequence of the last event the command wrote; readers wait for it to be projected. */
  readonly lastSequence: number;
}
