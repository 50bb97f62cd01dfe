/** Where a host secret came from: its variable, the embedded key file, the process, or nowhere. */
export type HostSecretSource = 'env' | 'file' | 'process' | 'none';

/** A host secret and where it came from (`value` undefined only for `none`). */
export interface LoadedHostSecret<T> {
  readonly value: T | undefined;
  readonly source: HostSecretSource;
  /** The variable, the key file, or why there is none: for the log line. */
  readonly from: string;
}

/** The host's mode and storage, which decide where a secret may come from. */
export interface HostSecretConfig {
  readonly mode: 'embedded' | 'distributed';
  readonly dataDir: string | undefined;
  readonly databaseUrl: string | undefined;
}

/** How one kind of host secret is read, made and kept. */
export interface HostSecretKind<T> {
  /** The operator's variable. */
  readonly env: string;
  /** Reads a value; `from` names where it was read, for the error. */
  readonly parse: (raw: string, from: string) => T;
  /** A new value, as it is written to the key file. */
  readonly generate: () => string;
  /** The embedded host's key file for its data folder. */
  readonly file: (dataDir: string) => string;
  /** One value for the life of the process (an in-memory data folder), kept by the caller. */
  readonly processValue: { current: T | undefined };
}

/**
 * Which value of a host secret a process uses (the webhook secret ring, the audit signing key):
 * - the operator's variable when set, in any mode;
 * - embedded without it: the key file next to the data folder, generated (by `readOrCreate`, the
 *   caller's file access: mode 0600) on first start, so what it protects survives restarts; with an
 *   in-memory data folder, one value for the life of the process, like the data;
 * - distributed without it, or embedded on an external Postgres with no data folder: none (every
 *   instance must share one value, and a generated one would differ per instance or outlive nothing).
 * @throws whatever `parse` throws for a malformed value.
 */
export function loadHostSecret<T>(
  kind: HostSecretKind<T>,
  config: HostSecretConfig,
  env: Readonly<Record<string, string | undefined>>,
  readOrCreate: (file: string, create: () => string) => string,
): LoadedHostSecret<T> {
  const raw = env[kind.env];
  if (raw !== undefined && raw.trim() !== '')
    return { value: kind.parse(raw, kind.env), source: 'env', from: kind.env };
  if (config.mode === 'distributed')
    return { value: undefined, source: 'none', from: `${kind.env} is not set` };
  if (config.dataDir === undefined && config.databaseUrl !== undefined) {
    return {
      value: undefined,
      source: 'none',
      from: `${kind.env} is not set and there is no data folder to keep a generated key beside the database`,
    };
  }
  if (config.dataDir === undefined) {
    kind.processValue.current ??= kind.parse(kind.generate(), 'generated key');
    return {
      value: kind.processValue.current,
      source: 'process',
      from: 'a process-lifetime key (in-memory data folder)',
    };
  }
  const file = kind.file(config.dataDir);
  return { value: kind.parse(readOrCreate(file, kind.generate), file), source: 'file', from: file };
}
