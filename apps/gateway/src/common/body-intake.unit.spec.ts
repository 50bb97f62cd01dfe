import { MAX_JSON_DEPTH } from '@openwop/contracts';
import { BODY_TOO_DEEP, mediaTypeOf, mediaTypeRefusal, verifyJsonDepth } from './body-intake';
import { fromBodyParser } from './error-response.mapper';

describe('body intake: media types', () => {
  it('takes JSON on every route, with or without parameters', () => {
    expect(mediaTypeRefusal('POST', '/v1/runs', 'application/json', true)).toBeUndefined();
    expect(
      mediaTypeRefusal('POST', '/v1/runs/r1/cancel', 'Application/JSON; charset=utf-8', true),
    ).toBeUndefined();
  });

  it('takes YAML on workflow registration only', () => {
    expect(mediaTypeRefusal('POST', '/v1/workflows', 'application/yaml', true)).toBeUndefined();
    expect(mediaTypeRefusal('POST', '/v1/workflows/', 'text/yaml', true)).toBeUndefined();
    expect(mediaTypeRefusal('POST', '/v1/runs', 'application/yaml', true)?.code).toBe(
      'unsupported_media_type',
    );
  });

  it('refuses any other body with 415 and says what the route takes', () => {
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/xml',
      undefined,
    ]) {
      const refusal = mediaTypeRefusal('POST', '/v1/runs', type, true);
      expect(refusal?.code).toBe('unsupported_media_type');
      expect(refusal?.details).toEqual({
        contentType: type === undefined ? null : mediaTypeOf(type),
        accepted: ['application/json'],
      });
    }
  });

  it('lets a request without a body through whatever it declares', () => {
    expect(
      mediaTypeRefusal('POST', '/v1/runs/r1/cancel', 'application/x-www-form-urlencoded', false),
    ).toBeUndefined();
    expect(mediaTypeRefusal('GET', '/v1/runs', undefined, false)).toBeUndefined();
  });
});

describe('body intake: JSON depth', () => {
  const deep = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));

  it('passes a body at the bound and refuses one past it as validation_error', () => {
    expect(() => verifyJsonDepth({} as never, undefined, deep(MAX_JSON_DEPTH))).not.toThrow();
    let thrown: unknown;
    try {
      verifyJsonDepth({} as never, undefined, deep(3_000));
    } catch (e) {
      thrown = e;
    }
    expect((thrown as { type?: unknown }).type).toBe(BODY_TOO_DEEP);
    const mapped = fromBodyParser(thrown);
    expect(mapped?.code).toBe('validation_error');
    expect(mapped?.details).toMatchObject({ maxDepth: MAX_JSON_DEPTH });
  });
});
