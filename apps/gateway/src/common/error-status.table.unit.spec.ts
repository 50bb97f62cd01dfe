import { ERROR_STATUS, resolveErrorCode, statusForErrorCode } from './error-status.table';

describe('the error status table', () => {
  it.each([
    ['validation_error', 400],
    ['unsupported_stream_mode', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['interrupt_not_found', 404],
    ['run_already_exists', 409],
    ['interrupt_already_resolved', 409],
    ['interrupt_expired', 410],
    ['interrupt_cancelled', 422],
    ['capability_required', 422],
    ['internal_error', 500],
    ['unavailable', 503],
  ])('maps %s to %i', (code, status) => {
    expect(statusForErrorCode(code)).toBe(status);
    expect(resolveErrorCode(code)).toEqual({ code, status, known: true });
  });

  it('answers the engine’s workflow_not_found as 400 validation_error', () => {
    expect(resolveErrorCode('workflow_not_found')).toEqual({
      code: 'validation_error',
      status: 400,
      known: true,
    });
  });

  it('answers a command its service could not apply (command_not_applied) as 400 validation_error', () => {
    expect(resolveErrorCode('command_not_applied')).toEqual({
      code: 'validation_error',
      status: 400,
      known: true,
    });
  });

  it('answers a code nobody put in the table as 500 internal_error', () => {
    expect(resolveErrorCode('made_up')).toEqual({ code: 'internal_error', status: 500, known: false });
    expect(resolveErrorCode('toString')).toEqual({ code: 'internal_error', status: 500, known: false });
  });

  it('only holds snake_case codes with 4xx/5xx statuses', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });
});
