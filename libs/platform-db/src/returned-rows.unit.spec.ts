import { returnedRows } from './returned-rows';

describe('returnedRows', () => {
  it("unwraps the driver's [rows, count] answer to an UPDATE … RETURNING", () => {
    expect(returnedRows<{ id: string }>([[{ id: 'a' }, { id: 'b' }], 2])).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(returnedRows<{ id: string }>([[], 0])).toEqual([]);
  });

  it('passes plain rows through, two rows included', () => {
    const rows = [{ id: 'a' }, { id: 'b' }];
    expect(returnedRows(rows)).toBe(rows);
    expect(returnedRows([])).toEqual([]);
  });
});
