import { DomainError } from '@openwop/kernel';
import { encodeKeysetCursor } from '@openwop/contracts';
import { decodeKeysetCursor } from './keyset-cursor';

const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('keyset cursor at the edge', () => {
  it('decodes what the contracts encode', () => {
    expect(decodeKeysetCursor(encodeKeysetCursor(new Date('2026-11-25T13:52:24.123Z'), 'run-1'))).toEqual({
      at: '2026-11-25T13:52:24.123Z',
      id: 'run-1',
    });
  });

  it('answers a bad cursor with validation_error at /cursor', () => {
    try {
      decodeKeysetCursor(raw(['+200000-01-01T00:00:00.000Z', 'x']));
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe('validation_error');
      expect((e as DomainError).details).toEqual({
        errors: [{ path: '/cursor', message: 'not a cursor this host issued' }],
      });
    }
  });
});
