import { Attr, interruptAttributes, interruptCountOf } from './attributes';

describe('interruptAttributes', () => {
  it('carries kind, id and the per-(run, node) counter at the end of the id', () => {
    expect(interruptAttributes('approval', 'run-1:gate:2')).toEqual({
      [Attr.interruptKind]: 'approval',
      [Attr.interruptId]: 'run-1:gate:2',
      [Attr.interruptCount]: 2,
    });
  });

  it('leaves the counter out when the id does not end in one', () => {
    expect(interruptAttributes('custom', 'opaque-id')).not.toHaveProperty(Attr.interruptCount);
    expect(interruptCountOf('run:node:')).toBeUndefined();
    expect(interruptCountOf('run:node:-1')).toBeUndefined();
    expect(interruptCountOf('run:node:0')).toBe(0);
  });
});
