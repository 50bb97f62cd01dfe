/** One server-sent event: `id:`, `event:` (default `message`) and the `data:` lines joined by `\n`. */
export interface SseMessage {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Incremental parser of a `text/event-stream` body (WHATWG HTML §9.2): feed it decoded text as it
 * arrives; it returns the messages completed by a blank line. Comment lines (`:keepalive`) and
 * unknown fields are ignored; `\r\n`, `\r` and `\n` all end a line.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event = '';
  private data: string[] = [];

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone `\r` at the very end may be the first half of `\r\n`: wait for more text.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      if (this.data.length === 0 && this.id === undefined && this.event === '') return undefined;
      const message: SseMessage = {
        ...(this.id !== undefined ? { id: this.id } : {}),
        event: this.event || 'message',
        data: this.data.join('\n'),
      };
      this.id = undefined;
      this.event = '';
      this.data = [];
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') this.id = value;
    else if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}
