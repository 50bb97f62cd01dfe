import { LlmProviderError } from '../llm-provider.error';

/** One server-sent event: its type (`message` unless an `event:` field named it) and data lines joined by `\n`. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

const LF = 0x0a;
const CR = 0x0d;
/** A line longer than this (no line break yet) is not a chat-completions stream. */
const DEFAULT_MAX_LINE_LENGTH = 4 * 1024 * 1024;

/**
 * An incremental `text/event-stream` parser (WHATWG HTML §9.2.6): text goes in as it arrives,
 * in pieces of any size; complete events come out. Lines end in LF, CRLF or CR (a CR at the end
 * of a piece waits for the next piece, in case an LF follows); lines starting with `:` are
 * comments (keep-alives); `data:` lines of one event are joined by `\n`; a blank line dispatches.
 *
 * Unlike a browser, {@link end} also dispatches a last event that lacks its closing blank line,
 * because some servers close the connection right after `data: [DONE]`.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private lastId: string | undefined;
  private started = false;

  constructor(private readonly maxLineLength = DEFAULT_MAX_LINE_LENGTH) {}

  /**
   * Feeds decoded text; returns the events it completed, in order.
   *
   * @throws {LlmProviderError} code `protocol` when a line grows past the maximum length.
   */
  push(text: string): SseEvent[] {
    this.buffer += this.stripBom(text);
    const events: SseEvent[] = [];
    this.drainLines(events, false);
    if (this.buffer.length > this.maxLineLength) {
      throw new LlmProviderError('protocol', `an event-stream line exceeds ${this.maxLineLength} characters`);
    }
    return events;
  }

  /** Signals the end of the stream; returns what the last, unterminated lines completed. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    this.drainLines(events, true);
    if (this.buffer.length > 0) this.processLine(this.buffer, events);
    this.buffer = '';
    this.dispatch(events);
    return events;
  }

  private stripBom(text: string): string {
    if (this.started || text.length === 0) return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private drainLines(events: SseEvent[], final: boolean): void {
    const buffer = this.buffer;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const code = buffer.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      if (code === CR && i === buffer.length - 1 && !final) break;
      const line = buffer.slice(start, i);
      if (code === CR && buffer.charCodeAt(i + 1) === LF) i++;
      start = i + 1;
      this.processLine(line, events);
    }
    this.buffer = buffer.slice(start);
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) return this.dispatch(events);
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        // `retry` and unknown fields carry nothing a completion needs.
        break;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (this.data.length > 0) {
      const event = this.eventType || 'message';
      const data = this.data.join('\n');
      events.push(this.lastId === undefined ? { event, data } : { event, data, id: this.lastId });
    }
    this.data = [];
    this.eventType = '';
  }
}

/**
 * Decodes a byte stream as UTF-8 (characters split across reads are kept whole) and yields its
 * server-sent events in order.
 */
export async function* parseSseStream(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser();
  for await (const piece of bytes) {
    yield* parser.push(decoder.decode(piece, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}
