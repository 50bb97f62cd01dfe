import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { assertErrorEnvelope } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { BrokerUnreachableError, RequestTimeoutError } from '@openwop/platform-bus';
import { ApiError } from './api.error';
import { toErrorResponse } from './error-response.mapper';

const GET = (path: string) => ({ method: 'GET', path });

function map(exception: unknown, path = '/v1/runs') {
  const response = toErrorResponse(exception, GET(path));
  assertErrorEnvelope(response.body);
  return response;
}

describe('toErrorResponse', () => {
  it('keeps a domain rejection’s code, message and details, mapped through the table', () => {
    const r = map(new DomainError('interrupt_already_resolved', 'already resolved', { interruptId: 'i1' }));
    expect(r).toEqual({
      status: 409,
      body: {
        error: 'interrupt_already_resolved',
        message: 'already resolved',
        details: { interruptId: 'i1' },
      },
      headers: {},
    });
  });

  it('puts scopeRequired under details and asks for Bearer credentials on 401', () => {
    expect(map(new ApiError('forbidden', 'needs runs:read', { scopeRequired: 'runs:read' })).body).toEqual({
      error: 'forbidden',
      message: 'needs runs:read',
      details: { scopeRequired: 'runs:read' },
    });
    expect(map(new ApiError('unauthenticated', 'no key')).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="openwop"',
    });
  });

  it('aliases workflow_not_found to 400 validation_error', () => {
    const r = map(new DomainError('workflow_not_found', 'Unknown workflowId "x".', { workflowId: 'x' }));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'validation_error',
      message: 'Unknown workflowId "x".',
      details: { workflowId: 'x' },
    });
  });

  it('sets Retry-After on 503 unavailable (default 1 s)', () => {
    expect(map(new ApiError('unavailable', 'later', undefined, 7)).headers).toEqual({ 'Retry-After': '7' });
    expect(map(new DomainError('unavailable', 'later')).headers).toEqual({ 'Retry-After': '1' });
    const timeout = map(new RequestTimeoutError('engine.internal.run.command.v1', 1000));
    expect(timeout.status).toBe(503);
    expect(timeout.headers).toEqual({ 'Retry-After': '1' });
    expect(timeout.body.message).toMatch(/may still take effect/);
    const broker = map(new BrokerUnreachableError(['10.0.0.9:9092'], new Error('ECONNREFUSED')));
    expect(broker.status).toBe(503);
    expect(JSON.stringify(broker.body)).not.toContain('10.0.0.9');
  });

  it('answers 503 unavailable with Retry-After while Postgres restarts (the statement did not run)', () => {
    const shuttingDown = Object.assign(new Error('the database system is shutting down'), { code: '57P03' });
    const mapped = map(shuttingDown);
    expect(mapped.status).toBe(503);
    expect(mapped.body.error).toBe('unavailable');
    expect(mapped.headers?.['Retry-After']).toBeDefined();
  });

  it('answers an unmatched route 404 not_found under /v1 and on the unversioned (v2) path space alike', () => {
    expect(map(new NotFoundException('Cannot GET /v1/nope'), '/v1/nope').body.error).toBe('not_found');
    expect(map(new NotFoundException('Cannot GET /.well-known/other'), '/.well-known/other').status).toBe(
      404,
    );
    const outside = map(new NotFoundException('Cannot GET /nope'), '/nope');
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ error: 'not_found', message: 'No route GET /nope' });
  });

  it('maps body-parser failures: malformed JSON 400, too large 413', () => {
    const malformed = map(
      Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed', status: 400 }),
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('validation_error');
    expect(malformed.body.message).toMatch(/not valid JSON/);
    expect(
      map(Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413, limit: 10 })).status,
    ).toBe(413);
  });

  it('maps plain Nest HTTP exceptions by status', () => {
    expect(map(new BadRequestException('bad')).body).toEqual({ error: 'validation_error', message: 'bad' });
    expect(map(new PayloadTooLargeException()).status).toBe(413);
  });

  it('answers anything else 500 internal_error with only a correlation id', () => {
    const r = map(new Error('connection to db-7.internal:5432 refused'));
    expect(r.status).toBe(500);
    expect(r.body.error).toBe('internal_error');
    expect(JSON.stringify(r.body)).not.toContain('db-7');
    expect(r.body.details).toEqual({ correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(r.internal?.correlationId).toBe((r.body.details as { correlationId: string }).correlationId);
    expect(map('a string').status).toBe(500);
    expect(map(new DomainError('not_in_the_table', 'secret internals')).body.message).not.toContain('secret');
  });
});
