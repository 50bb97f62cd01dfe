import { parseSseStream, SseParser, type SseEvent } from './sse.parser';

/** Feeds `pieces` one by one, then ends, collecting every event. */
function parse(pieces: readonly string[]): SseEvent[] {
  const parser = new SseParser();
  return [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()];
}

/** Every way to cut `text` in two. */
function everySplit(text: string): string[][] {
  return Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
}

describe('SseParser', () => {
  it('dispatches one event per blank line, several per piece', () => {
    expect(parse(['data: one\n\ndata: two\n\ndata: three\n\n'])).toEqual([
      { event: 'message', data: 'one' },
      { event: 'message', data: 'two' },
      { event: 'message', data: 'three' },
    ]);
  });

  it('gives the same events however the stream is cut', () => {
    const text =
      'data: {"a":1}\r\n\r\n: keep-alive\r\n\r\nevent: x\r\ndata: l1\r\ndata: l2\r\n\r\ndata: [DONE]\r\n\r\n';
    const expected = parse([text]);
    expect(expected).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'x', data: 'l1\nl2' },
      { event: 'message', data: '[DONE]' },
    ]);
    for (const split of everySplit(text)) expect(parse(split)).toEqual(expected);
    expect(parse(Array.from(text))).toEqual(expected);
  });

  it('accepts LF, CRLF and lone CR line endings, even a CR split from its LF', () => {
    expect(parse(['data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r'])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
    const parser = new SseParser();
    expect(parser.push('data: d\r')).toEqual([]);
    expect(parser.push('\n\r')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'message', data: 'd' }]);
  });

  it('joins multi-line data with \\n and strips one leading space only', () => {
    expect(parse(['data:no-space\ndata:  two-spaces\ndata\n\n'])).toEqual([
      { event: 'message', data: 'no-space\n two-spaces\n' },
    ]);
  });

  it('ignores comments, keep-alives, retry and unknown fields, and events without data', () => {
    expect(parse([': ping\n\n:\n\nretry: 1000\nfoo: bar\n\nevent: empty\n\ndata: x\n\n'])).toEqual([
      { event: 'message', data: 'x' },
    ]);
  });

  it('keeps the last event id and resets the event type after each dispatch', () => {
    expect(parse(['id: 7\nevent: custom\ndata: a\n\ndata: b\n\n'])).toEqual([
      { event: 'custom', data: 'a', id: '7' },
      { event: 'message', data: 'b', id: '7' },
    ]);
  });

  it('strips a leading byte-order mark', () => {
    expect(parse(['\uFEFFdata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('dispatches a last event that lacks its blank line when the stream ends', () => {
    expect(parse(['data: a\n\ndata: [DONE]'])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('rejects a line longer than the limit', () => {
    const parser = new SseParser(16);
    expect(() => parser.push(`data: ${'x'.repeat(20)}`)).toThrow(
      expect.objectContaining({ code: 'protocol' }),
    );
  });
});

describe('parseSseStream', () => {
  it('decodes UTF-8 characters split across byte pieces', async () => {
    const bytes = new TextEncoder().encode('data: héllo 👋\n\n');
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
    async function* source() {
      yield* pieces;
    }
    const events: SseEvent[] = [];
    for await (const event of parseSseStream(source())) events.push(event);
    expect(events).toEqual([{ event: 'message', data: 'héllo 👋' }]);
  });
});
