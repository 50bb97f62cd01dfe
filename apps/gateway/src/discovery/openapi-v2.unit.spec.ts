import 'reflect-metadata';
import { parseIdempotencyKeyV2 } from '../idempotency/idempotency-key';
import { openApiDocuments } from './openapi.controller';
import { V2_IDEMPOTENCY_KEY_PATTERN } from './openapi.document';

// The v2 OpenAPI document (GET /openapi.json under major 2) describes the v2 Idempotency-Key: the
// grammar `^[A-Za-z0-9._~-]{22,128}$` (v2 idempotency.md §Layer 1) on every mutating operation, with
// its refusal `400 idempotency_key_invalid`; the v1 document keeps v1's header (issue 30).

interface Operation {
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: unknown }[] } }> }>;
}

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

function operations(document: Record<string, unknown>): [string, string, Operation][] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [method, path, op] as [string, string, Operation]),
  );
}

const keyParameter = (op: Operation) => op.parameters?.find((p) => p.name === 'Idempotency-Key');
const errorCodesOf = (op: Operation, status: string): unknown[] => {
  const schema = op.responses[status]?.content?.['application/json']?.schema;
  const enumOf = (schema?.allOf?.[1]?.properties as { error?: { enum?: unknown[] } } | undefined)?.error;
  return enumOf?.enum ?? [];
};

describe.each([false, true])('the v2 OpenAPI document (test seams %s)', (testSeams) => {
  const { v1, v2 } = openApiDocuments(testSeams);

  it('puts the v2 Idempotency-Key grammar on every mutating operation, with 400 idempotency_key_invalid', () => {
    const mutating = operations(v2).filter(([method]) => MUTATING.has(method));
    expect(mutating.length).toBeGreaterThan(10);
    const names = mutating.map(([method, path]) => `${method} ${path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'post /runs',
        'post /runs/{runId}/interrupts/{nodeId}',
        'post /interrupts/{token}',
        'post /webhooks',
        'delete /webhooks/{webhookId}',
      ]),
    );
    for (const [method, path, op] of mutating) {
      expect([method, path, keyParameter(op)]).toEqual([
        method,
        path,
        expect.objectContaining({
          in: 'header',
          schema: { type: 'string', pattern: '^[A-Za-z0-9._~-]{22,128}$', minLength: 22, maxLength: 128 },
        }),
      ]);
      expect([method, path, errorCodesOf(op, '400')]).toEqual([
        method,
        path,
        expect.arrayContaining(['idempotency_key_invalid']),
      ]);
    }
    for (const [method, path, op] of operations(v2).filter(([m]) => !MUTATING.has(m))) {
      expect([method, path, keyParameter(op)]).toEqual([method, path, undefined]);
    }
  });

  it('the v1 document keeps the v1 header on POST: at most 255 characters, no v2 pattern or code', () => {
    const posts = operations(v1).filter(([method]) => method === 'post');
    expect(posts.length).toBeGreaterThan(10);
    for (const [, , op] of posts) {
      expect(keyParameter(op)?.schema).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
      expect(errorCodesOf(op, '400')).not.toContain('idempotency_key_invalid');
    }
  });
});

describe('the documented pattern and the gateway check', () => {
  it.each([
    ['3f1c2a4e-7b1d-4c55-9d7e-0b5a6c1d2e3f', true],
    ['PxwqTnsdTFWdfgt6Tz4sEQ', true],
    ['short-key', false],
    ['order:42-PxwqTnsdTFWdfgt6Tz4sEQ', false],
    ['a'.repeat(129), false],
  ])('%s: the pattern says %s, and so does the v2 grammar check', (key, matches) => {
    expect(new RegExp(V2_IDEMPOTENCY_KEY_PATTERN).test(key)).toBe(matches);
    if (!matches) expect(parseIdempotencyKeyV2(key).kind).toBe('invalid');
    else expect(parseIdempotencyKeyV2(key).kind).toBe('valid');
  });
});
