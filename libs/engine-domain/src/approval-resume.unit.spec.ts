import { approvalActionOf, approvalDecisionOf } from './approval-resume';

describe('approvalActionOf', () => {
  const full = ['accept', 'reject', 'refine'];

  it('takes an explicit action, reading edit as edit-accept', () => {
    expect(approvalActionOf({ action: 'refine' }, ['accept'])).toBe('refine');
    expect(approvalActionOf({ action: 'edit' }, full)).toBe('edit-accept');
  });

  it('maps the legacy decision the way the interrupt service does (one copy, in the contracts)', () => {
    expect(approvalActionOf({ decision: 'approved' }, full)).toBe('accept');
    expect(approvalActionOf({ decision: 'rejected', feedback: 'shorter' }, full)).toBe('refine');
    // Blank feedback is no feedback; a gate that offers reject and no refine keeps a reject.
    expect(approvalActionOf({ decision: 'rejected', feedback: '   ' }, full)).toBe('reject');
    expect(approvalActionOf({ decision: 'rejected', feedback: 'no' }, ['accept', 'reject'])).toBe('reject');
    expect(approvalActionOf({ decision: 'rejected', feedback: 'no' }, undefined)).toBe('reject');
  });

  it('fails closed on anything else', () => {
    for (const resume of [
      null,
      'accept',
      {},
      { decision: 'timeout' },
      { decision: 'Approved' },
      { action: 'ask' },
    ]) {
      expect(approvalActionOf(resume, full)).toBe('reject');
    }
  });

  it('names the decision of each exit', () => {
    expect(['accept', 'edit-accept', 'reject', 'refine'].map((a) => approvalDecisionOf(a as never))).toEqual([
      'approved',
      'approved',
      'rejected',
      'changes-requested',
    ]);
  });
});
