import { approversListOf } from './list-interrupts.controller';

describe("approversListOf (an inbox item's approversList)", () => {
  it("is the list the interrupt service holds, else the payload's", () => {
    expect(approversListOf(['lead'], { approversList: ['alice'] })).toEqual(['lead']);
    expect(approversListOf(null, { approversList: ['alice', 'group:finance'] })).toEqual([
      'alice',
      'group:finance',
    ]);
  });

  it("is absent when none is set, whether the list is missing or empty (the quorum fixture's open panel)", () => {
    expect(approversListOf(null, { title: 'x' })).toBeUndefined();
    expect(approversListOf(null, null)).toBeUndefined();
    expect(approversListOf([], { approversList: [] })).toBeUndefined();
    expect(approversListOf(null, { approversList: [] })).toBeUndefined();
  });
});
