import type { ForkMode, RunEventDoc } from '@openwop/contracts';
import { ApiError, type FieldError } from '../common/api.error';
import type { ForkRunRequestDto } from './fork-run.request.dto';

/** What a valid fork request asks for, before the source's log is consulted. */
export interface ForkRequest {
  readonly mode: ForkMode;
  readonly fromSeq: number;
  /** `branch`: the RunOptions to lay over the source's. */
  readonly overlay?: RunOptionsOverlay;
}

/** `RunOptions` (run-options.schema.json): the fields a branch may change. */
export interface RunOptionsOverlay {
  readonly configurable?: Record<string, unknown>;
  readonly tags?: string[];
  readonly metadata?: Record<string, unknown>;
}

const OVERLAY_FIELDS = ['configurable', 'tags', 'metadata'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a fork body beyond its DTO (replay.md §Endpoint): `replay` takes no overlay and defaults
 * `fromSeq` to 0; `branch` needs `fromSeq`, and its overlay must be RunOptions.
 *
 * @throws {@link ApiError} `validation_error` (400).
 */
export function parseForkRequest(body: ForkRunRequestDto): ForkRequest {
  const overlay = body.runOptionsOverlay;
  if (body.mode === 'replay') {
    if (overlay && Object.keys(overlay).length > 0) {
      throw ApiError.validation(
        'runOptionsOverlay must be omitted or empty in replay mode: a replay re-executes the source run as it was.',
        [{ path: '/runOptionsOverlay', message: 'must be empty for mode replay' }],
      );
    }
    return { mode: 'replay', fromSeq: body.fromSeq ?? 0 };
  }
  if (body.fromSeq === undefined) {
    throw ApiError.validation('fromSeq is required in branch mode.', [
      { path: '/fromSeq', message: 'is required for mode branch' },
    ]);
  }
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(overlay ?? {})) {
    if (!OVERLAY_FIELDS.includes(field))
      errors.push({ path: `/runOptionsOverlay/${field}`, message: 'is not a RunOptions field' });
    else if (
      field === 'tags' ? !Array.isArray(value) || value.some((t) => typeof t !== 'string') : !isObject(value)
    ) {
      errors.push({
        path: `/runOptionsOverlay/${field}`,
        message: field === 'tags' ? 'must be an array of strings' : 'must be an object',
      });
    }
  }
  if (errors.length) throw ApiError.validation('runOptionsOverlay is not a valid RunOptions.', errors);
  return { mode: 'branch', fromSeq: body.fromSeq, ...(overlay ? { overlay } : {}) };
}

/**
 * Checks that `fromSeq` names an event of the source's log.
 *
 * @throws {@link ApiError} `sequence_not_found` (422).
 */
export function assertForkPoint(sourceRunId: string, fromSeq: number, events: readonly RunEventDoc[]): void {
  if (events.some((e) => e.sequence === fromSeq)) return;
  const lastSequence = events.reduce((max, e) => Math.max(max, e.sequence), -1);
  throw new ApiError(
    'sequence_not_found',
    `Run ${sourceRunId} has no event at sequence ${fromSeq} (its log holds 0..${lastSequence}).`,
    {
      sourceRunId,
      fromSeq,
      lastSequence,
    },
  );
}

/** The source's `run.started` metadata with a branch's overlay: `configurable` merged key by key, `metadata` and `tags` laid over. */
export function overlaidMetadata(
  metadata: Record<string, unknown> | undefined,
  overlay: RunOptionsOverlay | undefined,
): Record<string, unknown> | undefined {
  if (!overlay || Object.keys(overlay).length === 0) return metadata;
  const base = metadata ?? {};
  const configurable = isObject(base.configurable) ? base.configurable : undefined;
  return {
    ...base,
    ...overlay.metadata,
    ...(configurable || overlay.configurable
      ? { configurable: { ...configurable, ...overlay.configurable } }
      : {}),
    ...(overlay.tags ? { tags: overlay.tags } : {}),
  };
}
