import { Client, Query } from 'pg';

/**
 * Distinct statement texts a process names; texts past these run unnamed, as before. Each prepared
 * text costs its connection's Postgres backend memory for the plan: ~18 KiB for a simple statement,
 * ~55 KiB for a multi-row insert with a CTE of up to 10 rows, ~100 KiB for one of a few dozen rows.
 */
const MAX_NAMED_TEXTS = 200;

/**
 * Statements with more parameters run unnamed: the multi-row inserts of large batches, whose texts
 * differ with every row count and would fill the plan caches with plans used rarely. A HITL cycle's
 * own batches (4–6 run events, so up to ~45 parameters) stay below it.
 */
const MAX_NAMED_PARAMETERS = 64;

const names = new Map<string, string>();

/**
 * The statement name of `text` with `parameters` parameters, or undefined when it runs unnamed: it
 * has more than {@link MAX_NAMED_PARAMETERS}, or {@link MAX_NAMED_TEXTS} texts have names already.
 */
export function statementName(text: string, parameters: number): string | undefined {
  if (parameters > MAX_NAMED_PARAMETERS) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_TEXTS) {
    name = `openwop_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A node-postgres client class whose parametrized statements (`query(text, values)`, what TypeORM's
 * `query` sends) are named prepared statements: a connection parses and plans each text once, then
 * only binds and executes it. Measured on this machine: ~45 µs of Postgres CPU per statement instead
 * of 70–100 µs, and ~25 % less wall time per round trip (docs/performance-log.md, round 3).
 *
 * While `enabled()` is false statements stay unnamed: migrations run then, so no statement this
 * process prepared outlives a schema change it made. Statements list their columns, so a column
 * another instance adds later does not change a prepared statement's result.
 */
export function preparingClient(enabled: () => boolean): typeof Client {
  class PreparingClient extends Client {}
  // Called below with the client as `this`, like the method it wraps.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const query = Client.prototype.query as (this: Client, ...args: unknown[]) => unknown;
  PreparingClient.prototype.query = function (this: Client, ...args: unknown[]): unknown {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && enabled()) {
      const name = statementName(text, values.length);
      if (name !== undefined) return namedQuery(query, this, name, text, values);
    }
    return query.apply(this, args);
  } as typeof Client.prototype.query;
  return PreparingClient;
}

/**
 * `client.query({name, text, values})` as node-postgres answers it (a promise of the result; an
 * error's stack leads back here, not to the socket), without its copy of the config object: a
 * `Query` built from the text is named and handed over as it is. node-postgres copies a config
 * object with `Object.getOwnPropertyDescriptors`/`defineProperties` on every call, which was the
 * largest single item of the query path in the services' profiles (round 11).
 */
function namedQuery(
  query: (this: Client, ...args: unknown[]) => unknown,
  client: Client,
  name: string,
  text: string,
  values: unknown[],
): Promise<unknown> {
  const q = new Query(text, values) as Query & {
    name?: string;
    callback?: (err: Error | null, res: unknown) => void;
  };
  q.name = name;
  const result = new Promise((resolve, reject) => {
    q.callback = (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res));
  }).catch((err: Error) => {
    Error.captureStackTrace(err);
    throw err;
  });
  query.call(client, q);
  return result;
}
