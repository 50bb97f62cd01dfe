import { legacyApprovalAction, offeredApprovalActions } from './approval-answer';

const gate = (...actions: string[]) => offeredApprovalActions(actions);

describe('offeredApprovalActions', () => {
  it('reads edit as edit-accept and drops what is not an action', () => {
    expect([...offeredApprovalActions(['accept', 'edit', 'ask', 'bogus', 3])]).toEqual([
      'accept',
      'edit-accept',
      'ask',
    ]);
  });

  it('offers accept and reject when the gate lists nothing usable', () => {
    for (const actions of [undefined, [], ['bogus'], 'accept', null]) {
      expect([...offeredApprovalActions(actions)]).toEqual(['accept', 'reject']);
    }
  });
});

describe('legacyApprovalAction (interrupt.md §Backward-compat mapping)', () => {
  it('maps approved to accept', () => {
    expect(legacyApprovalAction('approved', undefined, gate('accept', 'reject'))).toEqual({
      ok: true,
      action: 'accept',
    });
  });

  it('maps rejected without feedback to reject', () => {
    expect(legacyApprovalAction('rejected', undefined, gate('accept', 'reject', 'refine'))).toEqual({
      ok: true,
      action: 'reject',
    });
  });

  it('maps rejected with feedback to refine where the gate offers it', () => {
    expect(legacyApprovalAction('rejected', 'tighten §2', gate('accept', 'reject', 'refine'))).toEqual({
      ok: true,
      action: 'refine',
    });
    expect(legacyApprovalAction('rejected', 'tighten §2', gate('accept', 'refine'))).toEqual({
      ok: true,
      action: 'refine',
    });
  });

  it('keeps rejected with feedback a reject on a gate that offers reject but not refine', () => {
    expect(legacyApprovalAction('rejected', 'no', gate('accept', 'reject'))).toEqual({
      ok: true,
      action: 'reject',
    });
  });

  it('reads blank feedback as no feedback', () => {
    for (const blank of ['', '   ', '\n\t']) {
      expect(legacyApprovalAction('rejected', blank, gate('accept', 'reject', 'refine'))).toEqual({
        ok: true,
        action: 'reject',
      });
    }
  });

  it('reads feedback that is not a string as no feedback', () => {
    expect(legacyApprovalAction('rejected', { text: 'x' }, gate('accept', 'reject', 'refine'))).toEqual({
      ok: true,
      action: 'reject',
    });
  });

  it('refuses the host-internal decisions and anything else', () => {
    expect(legacyApprovalAction('timeout', undefined, gate())).toEqual({
      ok: false,
      path: '/decision',
      message: 'timeout is decided by the host, not submitted',
    });
    expect(legacyApprovalAction('cancelled', undefined, gate())).toMatchObject({
      ok: false,
      path: '/decision',
    });
    expect(legacyApprovalAction('Approved', undefined, gate())).toEqual({
      ok: false,
      path: '/decision',
      message: 'must be approved or rejected',
    });
    expect(legacyApprovalAction(undefined, 'text', gate())).toEqual({
      ok: false,
      path: '/action',
      message: 'is required',
    });
  });
});
