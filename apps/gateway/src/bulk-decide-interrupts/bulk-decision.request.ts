import {
  INTERRUPT_KINDS,
  MAX_BULK_DECISION_ITEMS,
  MAX_ID_LENGTH,
  MAX_INTERRUPT_AGE_MS,
  type InterruptKind,
} from '@openwop/contracts';
import { ApiError, type FieldError } from '../common/api.error';

/** Longest bulk cancel `reason` (as the runs' bulk cancel). */
export const MAX_BULK_DECISION_REASON_LENGTH = 512;

/** One selected interrupt: the run and the node it waits on. */
export interface BulkTarget {
  readonly runId: string;
  readonly nodeId: string;
}

/** One item of a bulk resolve: the target and the answer it gets. */
export interface BulkResolveItem extends BulkTarget {
  readonly resumeValue: unknown;
}

/** What a filter selects (the pending list's filters); resolved to ids once, at request time. */
export interface BulkFilter {
  readonly kind?: InterruptKind;
  readonly workflowId?: string;
  readonly runId?: string;
  /** Only interrupts pending at least this long. */
  readonly olderThanMs?: number;
  /** Only interrupts pending at most this long. */
  readonly newerThanMs?: number;
}

/** A parsed bulk body: explicit items, or a filter with how many it may select. */
export type BulkSelection<TItem> =
  | { readonly by: 'items'; readonly items: readonly TItem[] }
  | { readonly by: 'filter'; readonly filter: BulkFilter; readonly limit: number };

export interface BulkResolveRequest {
  readonly selection: BulkSelection<BulkResolveItem>;
  /** The filter's one answer for every selected interrupt (absent with `items`: each item has its own). */
  readonly resumeValue?: unknown;
}

export interface BulkCancelInterruptsRequest {
  readonly selection: BulkSelection<BulkTarget>;
  readonly reason?: string;
}

const FILTER_FIELDS = ['kind', 'workflowId', 'runId', 'olderThanMs', 'newerThanMs'] as const;

/**
 * Parses `POST /v1/interrupts:bulk-resolve`: `{items: [{runId, nodeId, resumeValue}]}` or
 * `{filter, resumeValue, limit?}`, exactly one of the two.
 *
 * @throws ApiError `validation_error` naming every problem; an over-cap `items` or `limit` carries
 * `details.maxItems`.
 */
export function parseBulkResolveRequest(body: unknown): BulkResolveRequest {
  const problems: FieldError[] = [];
  const value = requireObject(body);
  unknownFields(value, ['items', 'filter', 'resumeValue', 'limit'], problems);
  const selection = parseSelection<BulkResolveItem>(value, problems, true);
  if (selection?.by === 'filter' && !Object.hasOwn(value, 'resumeValue')) {
    problems.push({ path: '/resumeValue', message: 'is required with a filter' });
  }
  if (selection?.by === 'items' && Object.hasOwn(value, 'resumeValue')) {
    problems.push({ path: '/resumeValue', message: 'goes on each item when items are listed' });
  }
  fail(problems);
  return { selection: selection!, ...(selection!.by === 'filter' ? { resumeValue: value.resumeValue } : {}) };
}

/**
 * Parses `POST /v1/interrupts:bulk-cancel`: `{items: [{runId, nodeId}]}` or `{filter, limit?}`,
 * plus an optional `reason`.
 *
 * @throws ApiError `validation_error` as {@link parseBulkResolveRequest}.
 */
export function parseBulkCancelInterruptsRequest(body: unknown): BulkCancelInterruptsRequest {
  const problems: FieldError[] = [];
  const value = requireObject(body);
  unknownFields(value, ['items', 'filter', 'reason', 'limit'], problems);
  const selection = parseSelection<BulkTarget>(value, problems, false);
  const reason = value.reason;
  if (
    reason !== undefined &&
    (typeof reason !== 'string' || reason.length > MAX_BULK_DECISION_REASON_LENGTH)
  ) {
    problems.push({
      path: '/reason',
      message: `must be a string of at most ${MAX_BULK_DECISION_REASON_LENGTH} characters`,
    });
  }
  fail(problems);
  return { selection: selection!, ...(typeof reason === 'string' ? { reason } : {}) };
}

function parseSelection<TItem extends BulkTarget>(
  value: Record<string, unknown>,
  problems: FieldError[],
  withResumeValue: boolean,
): BulkSelection<TItem> | undefined {
  const hasItems = Object.hasOwn(value, 'items');
  const hasFilter = Object.hasOwn(value, 'filter');
  if (hasItems === hasFilter) {
    problems.push({ path: '', message: 'must have exactly one of items and filter' });
    return undefined;
  }
  if (hasItems) {
    if (Object.hasOwn(value, 'limit')) problems.push({ path: '/limit', message: 'goes with a filter only' });
    const items = parseItems(value.items, problems, withResumeValue);
    return items ? { by: 'items', items: items as unknown as TItem[] } : undefined;
  }
  const filter = parseFilter(value.filter, problems);
  const limit = value.limit ?? MAX_BULK_DECISION_ITEMS;
  if (!Number.isInteger(limit) || (limit as number) < 1) {
    problems.push({ path: '/limit', message: `must be an integer of 1..${MAX_BULK_DECISION_ITEMS}` });
    return undefined;
  }
  if ((limit as number) > MAX_BULK_DECISION_ITEMS) overCap('limit');
  return filter ? { by: 'filter', filter, limit: limit as number } : undefined;
}

function parseItems(
  raw: unknown,
  problems: FieldError[],
  withResumeValue: boolean,
): BulkResolveItem[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push({ path: '/items', message: 'must be a non-empty array' });
    return undefined;
  }
  if (raw.length > MAX_BULK_DECISION_ITEMS) overCap('items');
  const seen = new Set<string>();
  const items: BulkResolveItem[] = [];
  raw.forEach((entry: unknown, i) => {
    const path = `/items/${i}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ path, message: 'must be an object' });
      return;
    }
    const item = entry as Record<string, unknown>;
    unknownFields(
      item,
      withResumeValue ? ['runId', 'nodeId', 'resumeValue'] : ['runId', 'nodeId'],
      problems,
      path,
    );
    const ok = [idProblem(item.runId, `${path}/runId`), idProblem(item.nodeId, `${path}/nodeId`)].filter(
      (p): p is FieldError => p !== undefined,
    );
    problems.push(...ok);
    if (withResumeValue && !Object.hasOwn(item, 'resumeValue'))
      problems.push({ path: `${path}/resumeValue`, message: 'is required' });
    if (ok.length > 0) return;
    const key = JSON.stringify([item.runId, item.nodeId]);
    if (seen.has(key)) problems.push({ path, message: 'names an interrupt an earlier item already names' });
    seen.add(key);
    items.push({ runId: item.runId as string, nodeId: item.nodeId as string, resumeValue: item.resumeValue });
  });
  return items;
}

function parseFilter(raw: unknown, problems: FieldError[]): BulkFilter | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({ path: '/filter', message: 'must be an object' });
    return undefined;
  }
  const filter = raw as Record<string, unknown>;
  unknownFields(filter, FILTER_FIELDS, problems, '/filter');
  const before = problems.length;
  if (filter.kind !== undefined && !(INTERRUPT_KINDS as readonly unknown[]).includes(filter.kind)) {
    problems.push({ path: '/filter/kind', message: `must be one of ${INTERRUPT_KINDS.join(', ')}` });
  }
  for (const field of ['workflowId', 'runId'] as const) {
    const p = filter[field] !== undefined ? idProblem(filter[field], `/filter/${field}`) : undefined;
    if (p) problems.push(p);
  }
  for (const field of ['olderThanMs', 'newerThanMs'] as const) {
    const v = filter[field];
    if (
      v !== undefined &&
      (!Number.isInteger(v) || (v as number) < 0 || (v as number) > MAX_INTERRUPT_AGE_MS)
    ) {
      problems.push({
        path: `/filter/${field}`,
        message: `must be an integer of 0..${MAX_INTERRUPT_AGE_MS}`,
      });
    }
  }
  if (problems.length > before) return undefined;
  const picked: Record<string, unknown> = {};
  for (const field of FILTER_FIELDS) if (filter[field] !== undefined) picked[field] = filter[field];
  return picked;
}

function idProblem(value: unknown, path: string): FieldError | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH
    ? undefined
    : { path, message: `must be a string of 1..${MAX_ID_LENGTH} characters` };
}

function unknownFields(
  value: Record<string, unknown>,
  known: readonly string[],
  problems: FieldError[],
  at = '',
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.push({ path: `${at}/${key}`, message: 'is not a known field' });
  }
}

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation('The body must be a JSON object.', [
      { path: '', message: 'must be an object' },
    ]);
  }
  return body as Record<string, unknown>;
}

function overCap(field: 'items' | 'limit'): never {
  throw ApiError.validation(
    `A bulk decision takes at most ${MAX_BULK_DECISION_ITEMS} interrupts.`,
    [{ path: `/${field}`, message: `must select at most ${MAX_BULK_DECISION_ITEMS} interrupts` }],
    { maxItems: MAX_BULK_DECISION_ITEMS },
  );
}

function fail(problems: readonly FieldError[]): void {
  if (problems.length > 0) throw ApiError.validation('The bulk decision request is not valid.', problems);
}
