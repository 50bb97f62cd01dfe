import { parse as parseYaml } from 'yaml';
import { LlmConfigurationError } from '../llm-provider.error';
import type { ChunkSize, Script, ScriptReply } from './script.types';

/** A validated script row, with its matcher built. */
export interface CompiledReply {
  readonly agentId: string | undefined;
  readonly matches: (lastUserMessage: string) => boolean;
  readonly replies: readonly string[];
}

/** A validated script. */
export interface CompiledScript {
  readonly rows: readonly CompiledReply[];
  readonly fallback: string | undefined;
  readonly tokenDelayMs: number;
  readonly chunkSize: ChunkSize;
}

/**
 * Parses the text of a script file: JSON when `source` ends in `.json`, YAML otherwise. The
 * result still needs {@link compileScript}.
 *
 * @throws {LlmConfigurationError} naming `source` when the text is neither.
 */
export function parseScriptText(text: string, source: string): unknown {
  try {
    return /\.json$/i.test(source) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new LlmConfigurationError(`${source} cannot be parsed: ${reason}`);
  }
}

/**
 * Validates a script and builds its matchers.
 *
 * @throws {LlmConfigurationError} naming `source` and the offending field.
 */
export function compileScript(value: unknown, source = 'script'): CompiledScript {
  const fail = (what: string): never => {
    throw new LlmConfigurationError(`${source}: ${what}`);
  };
  if (!isRecord(value)) return fail('must be an object with a "replies" list');
  const script = value as Partial<Script>;
  if (!Array.isArray(script.replies)) return fail('"replies" must be a list');
  const rows = script.replies.map((row: unknown, index) =>
    compileRow(row, (what) => fail(`replies[${index}]: ${what}`)),
  );
  if (script.default !== undefined && typeof script.default !== 'string') fail('"default" must be a string');
  const tokenDelayMs = script.tokenDelayMs ?? 0;
  if (typeof tokenDelayMs !== 'number' || !Number.isFinite(tokenDelayMs) || tokenDelayMs < 0) {
    fail('"tokenDelayMs" must be a non-negative number');
  }
  const chunkSize = script.chunkSize ?? 'word';
  if (!isChunkSize(chunkSize)) fail('"chunkSize" must be "word", "char" or a positive integer');
  return { rows, fallback: script.default, tokenDelayMs, chunkSize };
}

function compileRow(value: unknown, fail: (what: string) => never): CompiledReply {
  if (!isRecord(value)) return fail('must be an object with a "reply"');
  const row = value as Partial<ScriptReply>;
  if (row.agentId !== undefined && (typeof row.agentId !== 'string' || row.agentId === '')) {
    fail('"agentId" must be a non-empty string');
  }
  const replies = typeof row.reply === 'string' ? [row.reply] : row.reply;
  if (!Array.isArray(replies) || replies.length === 0 || !replies.every((r) => typeof r === 'string')) {
    return fail('"reply" must be a string or a non-empty list of strings');
  }
  if (row.match !== undefined && typeof row.match !== 'string') fail('"match" must be a string');
  return { agentId: row.agentId, matches: buildMatcher(row.match, fail), replies: [...replies] };
}

function buildMatcher(match: string | undefined, fail: (what: string) => never): (text: string) => boolean {
  if (match === undefined) return () => true;
  const regex = /^\/(.+)\/([a-z]*)$/su.exec(match);
  if (!regex) {
    const needle = match.toLowerCase();
    return (text) => text.toLowerCase().includes(needle);
  }
  try {
    const pattern = new RegExp(regex[1] ?? '', (regex[2] ?? '').replace(/[gy]/g, ''));
    return (text) => pattern.test(text);
  } catch (error) {
    return fail(`"match" is not a valid regular expression: ${error instanceof Error ? error.message : ''}`);
  }
}

function isChunkSize(value: unknown): value is ChunkSize {
  return value === 'word' || value === 'char' || (Number.isInteger(value) && (value as number) > 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
