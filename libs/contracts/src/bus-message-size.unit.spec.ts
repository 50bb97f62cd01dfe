import {
  assertBusMessageSize,
  busMessageBytes,
  groupsWithinBytes,
  MAX_BUS_MESSAGE_BYTES,
  MessageTooLargeError,
} from './bus-message-size';
import { MAX_REQUEST_BODY_BYTES } from './limits';

describe('the bus message bound', () => {
  it('counts key, value and headers in UTF-8 bytes, plus framing', () => {
    const plain = busMessageBytes('k', '"abc"');
    expect(busMessageBytes('k', '"ébc"')).toBe(plain + 1);
    expect(busMessageBytes('k', '"abc"', { traceparent: 'x'.repeat(55) })).toBeGreaterThan(
      plain + 55 + 'traceparent'.length,
    );
  });

  it('refuses a message past the bound by topic and key, and accepts one at it', () => {
    const at = 'a'.repeat(MAX_BUS_MESSAGE_BYTES - busMessageBytes('run-1', ''));
    expect(assertBusMessageSize('run-events', 'run-1', at)).toBe(MAX_BUS_MESSAGE_BYTES);
    expect(() => assertBusMessageSize('run-events', 'run-1', `${at}a`)).toThrow(MessageTooLargeError);
    expect(() => assertBusMessageSize('run-events', 'run-1', `${at}a`)).toThrow(
      /for run-events \(key run-1\) is over/,
    );
  });

  it('leaves room for a whole request body inside one command', () => {
    expect(MAX_REQUEST_BODY_BYTES * 1.5).toBeLessThanOrEqual(MAX_BUS_MESSAGE_BYTES);
  });

  it('splits a backlog into consecutive groups within the budget, order kept, an oversize item alone', () => {
    const sizes = [4, 4, 4, 9, 1, 12, 2];
    const groups = groupsWithinBytes(sizes, (n) => n, 10);
    expect(groups).toEqual([[4, 4], [4], [9, 1], [12], [2]]);
    expect(groups.flat()).toEqual(sizes);
    expect(groupsWithinBytes([], (n: number) => n, 10)).toEqual([]);
  });
});
