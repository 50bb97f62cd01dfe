import type { ForkMode, RunOptionsOverlay } from '@openwop/contracts';
import { ApiError, type FieldError } from '../common/api.error';
import type { ForkRunRequestDto } from './fork-run.request.dto';

/** What a valid fork request asks for; the engine checks it against the source's log. */
export interface ForkRequest {
  readonly mode: ForkMode;
  readonly fromSeq: number;
  /** `branch`: the RunOptions to lay over the source's. */
  readonly overlay?: RunOptionsOverlay;
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
