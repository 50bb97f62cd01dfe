import type { Readable, Writable } from 'node:stream';
import { OpenWopClient } from '@openwop/sdk';
import { option, type ParsedArgs } from './util/args.parser';
import { connectionOf, type Connection } from './util/connection.config';
import type { Output } from './util/output';

/** The process `wop` runs in, passed in so tests can drive the commands. */
export interface CliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** What every command gets: its arguments, where to write, and a client of the configured server. */
export interface CliContext {
  readonly args: ParsedArgs;
  readonly out: Output;
  readonly io: CliIo;
  client(): OpenWopClient;
  /** The server and key the client uses, and where the key came from. */
  connection(): Connection;
}

export function contextOf(args: ParsedArgs, out: Output, io: CliIo): CliContext {
  let client: OpenWopClient | undefined;
  let conn: Connection | undefined;
  const connection = (): Connection => {
    if (conn) return conn;
    const url = option(args, 'url');
    const apiKey = option(args, 'api-key');
    conn = connectionOf({ ...(url ? { url } : {}), ...(apiKey ? { apiKey } : {}) }, io.env, io.cwd);
    return conn;
  };
  return {
    args,
    out,
    io,
    connection,
    client() {
      if (client) return client;
      const c = connection();
      client = new OpenWopClient({ baseUrl: c.url, ...(c.apiKey ? { apiKey: c.apiKey } : {}) });
      return client;
    },
  };
}
