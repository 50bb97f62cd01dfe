import {
  apiErrorFrom,
  OpenWopConflictError,
  OpenWopUnavailableError,
  OpenWopValidationError,
} from './errors';
import { SseParser } from './sse.parser';

describe('SseParser', () => {
  it('parses frames split anywhere, skips comments, joins data lines, accepts CRLF', () => {
    const parser = new SseParser();
    const text =
      ':keepalive\n\nid: 3\nevent: run.started\ndata: {"a":1}\n\nid: 4\r\nevent: x\r\ndata: l1\r\ndata: l2\r\n\r\n';
    const out = [];
    for (let i = 0; i < text.length; i += 5) out.push(...parser.push(text.slice(i, i + 5)));
    expect(out).toEqual([
      { id: '3', event: 'run.started', data: '{"a":1}' },
      { id: '4', event: 'x', data: 'l1\nl2' },
    ]);
  });

  it('keeps an unfinished frame until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\ndata: {}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ id: '1', event: 'message', data: '{}' }]);
  });
});

describe('apiErrorFrom', () => {
  it('maps the envelope to a typed exception carrying the spec error code', () => {
    const conflict = apiErrorFrom(409, {
      error: 'interrupt_already_resolved',
      message: 'already',
      details: { by: 'x' },
    });
    expect(conflict).toBeInstanceOf(OpenWopConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'interrupt_already_resolved', details: { by: 'x' } });
    expect(apiErrorFrom(400, { error: 'validation_error', message: 'bad' })).toBeInstanceOf(
      OpenWopValidationError,
    );
    const busy = apiErrorFrom(503, { error: 'unavailable', message: 'later' }, '', '2');
    expect(busy).toBeInstanceOf(OpenWopUnavailableError);
    expect((busy as OpenWopUnavailableError).retryAfterMs).toBe(2000);
    expect(apiErrorFrom(502, 'not json', 'Bad Gateway')).toMatchObject({
      code: 'http_502',
      message: '502 http_502: Bad Gateway',
    });
  });
});
