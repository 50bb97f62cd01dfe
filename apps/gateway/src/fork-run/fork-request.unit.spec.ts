import { ApiError } from '../common/api.error';
import { parseForkRequest } from './fork-request';

function refusal(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('a fork request', () => {
  it('replay: fromSeq defaults to 0; an empty overlay is fine, a non-empty one is a 400', () => {
    expect(parseForkRequest({ mode: 'replay' })).toEqual({ mode: 'replay', fromSeq: 0 });
    expect(parseForkRequest({ mode: 'replay', fromSeq: 3, runOptionsOverlay: {} })).toEqual({
      mode: 'replay',
      fromSeq: 3,
    });
    const e = refusal(() =>
      parseForkRequest({ mode: 'replay', runOptionsOverlay: { configurable: { a: 1 } } }),
    );
    expect(e.code).toBe('validation_error');
    expect(e.details).toEqual({
      errors: [{ path: '/runOptionsOverlay', message: 'must be empty for mode replay' }],
    });
  });

  it('branch: needs fromSeq, takes a RunOptions overlay and refuses anything else', () => {
    expect(refusal(() => parseForkRequest({ mode: 'branch' })).details).toEqual({
      errors: [{ path: '/fromSeq', message: 'is required for mode branch' }],
    });
    expect(
      parseForkRequest({
        mode: 'branch',
        fromSeq: 2,
        runOptionsOverlay: { configurable: { x: 1 }, tags: ['a'] },
      }),
    ).toEqual({
      mode: 'branch',
      fromSeq: 2,
      overlay: { configurable: { x: 1 }, tags: ['a'] },
    });
    const bad = refusal(() =>
      parseForkRequest({
        mode: 'branch',
        fromSeq: 0,
        runOptionsOverlay: { inputs: {}, tags: [1], configurable: 'x' },
      }),
    );
    expect(bad.details).toEqual({
      errors: [
        { path: '/runOptionsOverlay/inputs', message: 'is not a RunOptions field' },
        { path: '/runOptionsOverlay/tags', message: 'must be an array of strings' },
        { path: '/runOptionsOverlay/configurable', message: 'must be an object' },
      ],
    });
  });
});
