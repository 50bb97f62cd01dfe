import { ApiError } from './api.error';
import type { ProtocolMajor } from './protocol-version';

/**
 * The fields of a resolve body (a JSON object), checked for the major the request is served under:
 * - major 1: any object; its `resumeValue` when it has one, else the object itself is the value
 *   (conformance clients send `{action}` bare), as v1 has always taken it;
 * - major 2: the closed `{ resumeValue }` (interrupt.md): `resumeValue` is required and any other
 *   field is refused `400 validation_error`, naming it. `extra` lists the fields a route adds
 *   (`nodeId` on `:resolveInterrupt`).
 *
 * @returns the body's fields, and the resume value it carries.
 * @throws ApiError `validation_error`.
 */
export function resolveBodyOf(
  body: unknown,
  major: ProtocolMajor,
  extra: readonly string[] = [],
): { readonly fields: Record<string, unknown>; readonly resumeValue: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation('The body must be a JSON object.', [
      { path: '', message: 'must be an object' },
    ]);
  }
  const fields = body as Record<string, unknown>;
  const has = Object.hasOwn(fields, 'resumeValue');
  if (major === 1) return { fields, resumeValue: has ? fields.resumeValue : fields };
  const unknown = Object.keys(fields).filter((k) => k !== 'resumeValue' && !extra.includes(k));
  const problems = [
    ...(has ? [] : [{ path: '/resumeValue', message: 'is required' }]),
    ...unknown.map((k) => ({
      path: `/${k}`,
      message: 'is not a field of a v2 resolve body ({ resumeValue })',
    })),
  ];
  if (problems.length > 0)
    throw ApiError.validation('A v2 resolve body is { resumeValue } and nothing else.', problems);
  return { fields, resumeValue: fields.resumeValue };
}
