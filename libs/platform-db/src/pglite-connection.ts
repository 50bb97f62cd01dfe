import { EventEmitter } from 'node:events';
import { serialize } from 'pg-protocol';

/** The part of a PGlite instance this connection uses. */
export interface PgliteBackend {
  readonly waitReady: Promise<void>;
  execProtocolStream(
    message: Uint8Array,
    options: { throwOnError?: boolean },
  ): Promise<readonly { readonly name: string }[]>;
}

type Config = Parameters<typeof serialize.parse>[0];

/**
 * node-postgres's connection (what `Client` drives) over a PGlite instance in this process, without
 * a socket. The frontend messages of a statement (Parse, Bind, Describe, Execute) are kept until its
 * Sync (or Flush, or a simple query) and handed to PGlite in one call, and the backend messages of
 * that call are emitted as a socket connection would emit them. PGlite runs one call at a time, in
 * the order they were made. One call per statement instead of one per message: PGlite pays a
 * crossing into its WebAssembly backend and a file-system sync per call.
 *
 * PGlite has one session: every client of the pool shares this connection (the pool has one client).
 */
export class PgliteConnection extends EventEmitter {
  /** Read by `Client.end()`, which skips `end()` without it. */
  _connecting = false;
  /** `Client.end()` destroys the stream while a query is active. */
  readonly stream = { destroy: () => this.end() };
  /** node-postgres's bookkeeping of named statements, kept per connection (so across clients). */
  parsedStatements: Record<string, string> = {};
  submittedNamedStatements: Record<string, string> = {};

  private pending: Uint8Array[] = [];
  private queue: Promise<unknown>;
  private emitsMessages = false;

  constructor(private readonly backend: PgliteBackend) {
    super();
    this.queue = backend.waitReady;
    this.on('newListener', (event) => {
      if (event === 'message') this.emitsMessages = true;
    });
  }

  async connect(): Promise<void> {
    this._connecting = true;
    await this.backend.waitReady;
    // PGlite needs no startup or authentication: the session is ready at once.
    process.nextTick(() => this.emit('readyForQuery', { name: 'readyForQuery', status: 'I' }));
  }

  // Messages of an extended-protocol statement: kept until it ends.
  parse(config: Config): void {
    this.pending.push(serialize.parse(config));
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.pending.push(serialize.bind(config));
  }
  describe(config: Parameters<typeof serialize.describe>[0]): void {
    this.pending.push(serialize.describe(config));
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.pending.push(serialize.execute(config));
  }
  close(config: Parameters<typeof serialize.close>[0]): void {
    this.pending.push(serialize.close(config));
  }

  // Messages that end a statement: what was kept goes to PGlite with them.
  sync(): void {
    this.send(serialize.sync());
  }
  flush(): void {
    this.send(serialize.flush());
  }
  query(text: string): void {
    this.send(serialize.query(text));
  }
  sendCopyFromChunk(chunk: Buffer): void {
    this.send(serialize.copyData(chunk));
  }
  endCopyFrom(): void {
    this.send(serialize.copyDone());
  }
  sendCopyFail(message: string): void {
    this.send(serialize.copyFail(message));
  }

  /** Like a socket closing. The PGlite instance belongs to the caller and stays open for the pool's next client. */
  end(): void {
    this.queue = this.queue.then(() => this.emit('end'));
    for (const event of this.eventNames()) if (event !== 'newListener') this.removeAllListeners(event);
    this.emitsMessages = false;
  }

  // Socket-level calls a Client makes that mean nothing in process.
  requestSsl(): void {}
  startup(): void {}
  password(): void {}
  cancel(): void {}
  ref(): void {}
  unref(): void {}

  private send(last: Uint8Array): void {
    this.pending.push(last);
    const message = Buffer.concat(this.pending.splice(0));
    this.queue = this.queue
      .then(() => this.backend.execProtocolStream(message, { throwOnError: false }))
      .then((messages) => {
        for (const m of messages) {
          if (this.emitsMessages) this.emit('message', m);
          this.emit(m.name === 'error' ? 'errorMessage' : m.name, m);
        }
      })
      .catch((error: unknown) => this.emit('error', error));
  }
}
