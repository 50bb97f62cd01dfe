import type { RunEventDoc, RunEventType } from '@openwop/contracts';
import { inDraft } from './draft';
import { evolveRun, type RunRecord, type RunState } from './run.state';

/** Event ids are derived from run and sequence, so a re-emitted event dedupes everywhere. */
export function runEventId(runId: string, sequence: number): string {
  return `${runId}:${sequence}`;
}

/**
 * Stamps events with the run's next sequences, deterministic ids, the command's clock and a
 * causation chain (the first event to the command, each next one to the previous event), and folds
 * each into the run's state as it goes, so the executor always decides on the current state. The
 * state it starts from is never changed; the states it hands out share the maps it copied, so only
 * the latest one ({@link state}) is current.
 */
export class EventWriter {
  readonly events: RunEventDoc[] = [];
  private causationId: string;
  /** The state maps this writer copied: later events change them in place (`draft.ts`). */
  private readonly draft = new WeakSet<object>();

  constructor(
    private current: RunRecord,
    commandId: string,
    readonly now: string,
  ) {
    this.causationId = commandId;
  }

  get state(): RunRecord {
    return this.current;
  }

  emit(type: RunEventType, nodeId: string | undefined, payload: unknown): RunEventDoc {
    const sequence = this.current.lastSequence + 1;
    const eventId = runEventId(this.current.runId, sequence);
    const event: RunEventDoc = {
      eventId,
      runId: this.current.runId,
      ...(nodeId ? { nodeId } : {}),
      type,
      payload,
      timestamp: this.now,
      sequence,
      schemaVersion: 1,
      causationId: this.causationId,
    };
    this.events.push(event);
    this.causationId = eventId;
    this.current = inDraft(this.draft, () => evolveRun(this.current, event)) as RunRecord;
    return event;
  }

  /** The state after every event written so far. */
  result(): RunState {
    return this.current;
  }
}
