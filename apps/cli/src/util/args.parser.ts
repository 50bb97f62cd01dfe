import { UsageError } from './exit-codes';

/** A parsed command line: positionals, and options (repeatable ones collect every value). */
export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Map<string, string[]>;
  readonly flags: Set<string>;
}

/** Options that take a value (`--url X` or `--url=X`); every other `--name` is a boolean flag. */
const VALUED = new Set([
  'url',
  'api-key',
  'input',
  'action',
  'feedback',
  'answer',
  'value',
  'kind',
  'run',
  'status',
  'workflow',
  'limit',
  'cursor',
  'after',
  'reason',
  'from',
  'to',
  'public-key',
]);

/** Flags `wop` knows; anything else is a usage error. */
const FLAGS = new Set([
  'json',
  'follow',
  'help',
  'version',
  'no-color',
  'cancel-on-interrupt',
  'all',
  'partial',
]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h') {
      flags.add('help');
      continue;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (VALUED.has(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options.set(name, [...(options.get(name) ?? []), value]);
    } else if (FLAGS.has(name) && eq === -1) {
      flags.add(name);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, options, flags };
}

/** The last value of an option. */
export function option(args: ParsedArgs, name: string): string | undefined {
  const values = args.options.get(name);
  return values?.[values.length - 1];
}

/**
 * `key=value` pairs (`--input`, `--answer`) as an object; a value that parses as JSON is taken as
 * JSON (`n=3`, `ok=true`, `tags=["a"]`), anything else as a string.
 */
export function keyValues(args: ParsedArgs, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of args.options.get(name) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${name} takes key=value, got ${JSON.stringify(pair)}`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}
