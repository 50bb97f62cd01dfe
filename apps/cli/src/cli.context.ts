import type { Readable, Writable } from 'node:stream';
import { OpenWopClient } from '@openwop/sdk';
import { option, type ParsedArgs } from './util/args.parser';
import { connectionOf } from './util/connection.config';
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
}

export function contextOf(args: ParsedArgs, out: Output, io: CliIo): CliContext {
  let client: OpenWopClient | undefined;
  return {
    args,
    out,
    io,
    client() {
      if (client) return client;
      const url = option(args, 'url');
      const apiKey = option(args, 'api-key');
      const conn = connectionOf({ ...(url ? { url } : {}), ...(apiKey ? { apiKey } : {}) }, io.env, io.cwd);
      client = new OpenWopClient({ baseUrl: conn.url, ...(conn.apiKey ? { apiKey: conn.apiKey } : {}) });
      return client;
    },
  };
}
