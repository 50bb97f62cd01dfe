/**
 * The host's bounds on what it accepts, in one place: the gateway refuses anything outside them
 * (`400 validation_error`, `413`, `415`) before a command is sent, the engine re-checks what it
 * stores, and discovery advertises them (`limits`). Each bound names the column, timer or statement
 * it protects: a value past it would be accepted at the edge and then fail in a service that cannot
 * store or process it.
 */

import { MAX_BUS_MESSAGE_BYTES } from './bus-message-size';
import { escalationConfigProblems } from './escalation-config';

/**
 * Largest request body in bytes (JSON or YAML); more is `413 payload_too_large`. Half of what one
 * bus message may carry ({@link MAX_BUS_MESSAGE_BYTES}), so the command a body becomes, and the
 * event that records it, fit on the bus with their envelope.
 */
export const MAX_REQUEST_BODY_BYTES = 512 * 1024;

/**
 * Deepest nesting of objects/arrays in a request body (`{}` is depth 1). The gateway's validation,
 * the engine's schema checks and `JSON.stringify` all recurse; ~3,000 levels overflow the stack, so
 * the edge measures depth on the raw text, without recursion, before anything parses it.
 */
export const MAX_JSON_DEPTH = 64;

/** Most YAML aliases (`*name`) in a workflow body: each may expand a whole subtree (alias bombs). */
export const MAX_YAML_ALIASES = 100;

/**
 * Longest id or key the edge accepts (workflow, node, edge, run, tenant, scope, tag, query ids):
 * they are keys of indexed `text` columns and of Kafka message keys, and appear in every event.
 */
export const MAX_ID_LENGTH = 200;

/** Most nodes in one workflow: the engine plans a run over all of them in one synchronous step. */
export const MAX_WORKFLOW_NODES = 500;

/** Most edges in one workflow (the same planning step walks every edge). */
export const MAX_WORKFLOW_EDGES = 2_000;

/**
 * Highest `configurable.recursionLimit` (node executions per run; the spec's
 * `limits.maxNodeExecutions`). One stretch of a run is written in one statement of ~2 events per
 * execution at 6 parameters each; Postgres allows 65,535 parameters per statement, so 1,000
 * executions (~12,000 parameters) stay well inside, where 8,000 did not.
 */
export const MAX_NODE_EXECUTIONS = 1_000;

/**
 * Longest interrupt timeout (`config.timeoutMs`, `timeout_ms`, `maxSilenceMs`, `timeoutSec × 1000`):
 * 24 days. A Node timer fires at once past 2^31 − 1 ms (~24.8 days), and a deadline must stay an
 * instant Postgres and ISO-8601 can spell (`timeoutMs: 1e15` was neither): a longer timeout could
 * not be waited for as asked.
 */
export const MAX_INTERRUPT_TIMEOUT_MS = 2_073_600_000;

/**
 * Longest `core.delay` (`delayMs`): 30 days. A delay is a row in Postgres (`run_timers.due_at`, a
 * timestamp) that the engine polls, so no in-process timer bounds it; 30 days keeps a run's pinned
 * definition and its owner's key plausibly alive for the wait.
 */
export const MAX_DELAY_MS = 2_592_000_000;

/** Most approvals one gate may require (`config.requiredApprovals`): every vote is kept on the interrupt. */
export const MAX_REQUIRED_APPROVALS = 100;

/**
 * Latest conversation turn `ts` (ms epoch, RFC 0005 `ConversationTurn.ts`: integer ≥ 0):
 * 9999-12-31T23:59:59.999Z, the last instant a Postgres timestamp and an ISO-8601 date can both
 * spell; `1e300` is no instant, and a transcript's turns are read and ordered as instants.
 */
export const MAX_TURN_TS_MS = 253_402_300_799_999;

/** Largest conversation turn `content`, as JSON bytes: the transcript keeps every turn. */
export const MAX_TURN_CONTENT_BYTES = 65_536;

/** Longest turn `messageId`/`from`/`to`/`groupId`/`speakerId` (`conversation-turn.schema.json` `maxLength`). */
export const MAX_TURN_ID_LENGTH = 256;

/** Largest event sequence / turn index: `run_events.sequence` and `conversation_turns.turn_index` are Postgres `integer`s. */
export const MAX_SEQUENCE = 2_147_483_647;

/** Longest age filter of `GET /v1/interrupts` (100 years): `now - age` must stay a timestamp Postgres can compare. */
export const MAX_INTERRUPT_AGE_MS = 3_155_760_000_000;

/** Longest pagination cursor the gateway decodes (it issues ~100 characters). */
export const MAX_CURSOR_LENGTH = 512;

/**
 * Most interrupts one bulk resolve or bulk cancel decides (`items`, or a filter's `limit`; ADR 0036).
 * One HTTP request stays open while every item goes through the single route's handler, at most 16
 * in flight: 500 items took ~11 s embedded and ~45 s distributed on the 2-core test box, inside a
 * client's usual one-minute timeout. More is `400 validation_error` before anything is decided.
 */
export const MAX_BULK_DECISION_ITEMS = 500;

/** One bound a value breaks, named by JSON pointer (`details.errors[]` of a `validation_error`). */
export interface LimitProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The bounds as discovery advertises them under `limits`: the spec's engine limits
 * (`clarificationRounds`, `schemaRounds`, `envelopesPerTurn`, `maxNodeExecutions`) with the values
 * this host enforces, then this host's intake bounds.
 * - `clarificationRounds`: each clarification round is one execution of a clarification gate, so
 *   a run holds at most `maxNodeExecutions` of them (its `recursionLimit`, at most that).
 * - `schemaRounds`: 1. A resume value or turn is checked against its schema once; one that fails is
 *   refused (`400`) and nothing is retried on the host's side.
 * - `envelopesPerTurn`: 1. An agent node answers each exchange with exactly one turn.
 */
export function advertisedLimits(): Record<string, number> {
  return {
    clarificationRounds: MAX_NODE_EXECUTIONS,
    schemaRounds: 1,
    envelopesPerTurn: 1,
    maxNodeExecutions: MAX_NODE_EXECUTIONS,
    maxRequestBodyBytes: MAX_REQUEST_BODY_BYTES,
    maxBusMessageBytes: MAX_BUS_MESSAGE_BYTES,
    maxJsonDepth: MAX_JSON_DEPTH,
    maxYamlAliases: MAX_YAML_ALIASES,
    maxIdLength: MAX_ID_LENGTH,
    maxWorkflowNodes: MAX_WORKFLOW_NODES,
    maxWorkflowEdges: MAX_WORKFLOW_EDGES,
    maxInterruptTimeoutMs: MAX_INTERRUPT_TIMEOUT_MS,
    maxDelayMs: MAX_DELAY_MS,
    maxRequiredApprovals: MAX_REQUIRED_APPROVALS,
    maxTurnTsMs: MAX_TURN_TS_MS,
    maxTurnContentBytes: MAX_TURN_CONTENT_BYTES,
    maxBulkDecisionItems: MAX_BULK_DECISION_ITEMS,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property only: a key named `constructor` or `toString` is data, never a prototype member. */
function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function intProblem(value: unknown, path: string, min: number, max: number): LimitProblem | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return undefined;
  return { path, message: `must be an integer from ${min} to ${max}` };
}

function idProblem(value: unknown, path: string): LimitProblem | undefined {
  if (typeof value === 'string' && value.length > MAX_ID_LENGTH) {
    return { path, message: `must be at most ${MAX_ID_LENGTH} characters` };
  }
  return undefined;
}

/** A gate's timeout in ms (`timeoutMs`, else `timeoutSec`), when it is a number: what an escalation's ages must stay under. */
function gateTimeoutMs(config: Record<string, unknown>): number | undefined {
  const ms = own(config, 'timeoutMs');
  if (typeof ms === 'number') return ms;
  const sec = own(config, 'timeoutSec');
  return typeof sec === 'number' ? sec * 1000 : undefined;
}

/** Node config fields holding a timeout in ms (the spellings the built-in nodes read). */
const TIMEOUT_MS_FIELDS = ['timeoutMs', 'timeout_ms', 'maxSilenceMs', 'max_silence_ms'] as const;

/**
 * The bounds a workflow definition breaks (size, id lengths, node config numbers), or `[]`.
 * Cheap and checked before the schema, so an oversized definition costs no more than its count.
 * Anything that is not the expected shape is left to the schema check.
 */
export function workflowLimitProblems(definition: unknown): LimitProblem[] {
  if (!isRecord(definition)) return [];
  const problems: LimitProblem[] = [];
  const push = (p: LimitProblem | undefined) => {
    if (p) problems.push(p);
  };
  const nodes = own(definition, 'nodes');
  const edges = own(definition, 'edges');
  if (Array.isArray(nodes) && nodes.length > MAX_WORKFLOW_NODES) {
    problems.push({
      path: '/nodes',
      message: `must have at most ${MAX_WORKFLOW_NODES} nodes (has ${nodes.length})`,
    });
  }
  if (Array.isArray(edges) && edges.length > MAX_WORKFLOW_EDGES) {
    problems.push({
      path: '/edges',
      message: `must have at most ${MAX_WORKFLOW_EDGES} edges (has ${edges.length})`,
    });
  }
  if (problems.length > 0) return problems;
  push(idProblem(own(definition, 'id'), '/id'));
  if (Array.isArray(nodes)) {
    nodes.forEach((node: unknown, i) => {
      if (!isRecord(node)) return;
      push(idProblem(own(node, 'id'), `/nodes/${i}/id`));
      push(idProblem(own(node, 'typeId'), `/nodes/${i}/typeId`));
      const config = own(node, 'config');
      const typeId = own(node, 'typeId');
      if (isRecord(config))
        problems.push(
          ...nodeConfigProblems(config, `/nodes/${i}/config`, typeof typeId === 'string' ? typeId : ''),
        );
    });
  }
  if (Array.isArray(edges)) {
    edges.forEach((edge: unknown, i) => {
      if (!isRecord(edge)) return;
      for (const key of ['id', 'sourceNodeId', 'targetNodeId'] as const)
        push(idProblem(own(edge, key), `/edges/${i}/${key}`));
    });
  }
  return problems;
}

function nodeConfigProblems(config: Record<string, unknown>, path: string, typeId: string): LimitProblem[] {
  const problems: LimitProblem[] = [];
  const push = (p: LimitProblem | undefined) => {
    if (p) problems.push(p);
  };
  for (const field of TIMEOUT_MS_FIELDS)
    push(intProblem(own(config, field), `${path}/${field}`, 1, MAX_INTERRUPT_TIMEOUT_MS));
  push(
    intProblem(
      own(config, 'timeoutSec'),
      `${path}/timeoutSec`,
      1,
      Math.floor(MAX_INTERRUPT_TIMEOUT_MS / 1000),
    ),
  );
  push(intProblem(own(config, 'requiredApprovals'), `${path}/requiredApprovals`, 1, MAX_REQUIRED_APPROVALS));
  problems.push(
    ...escalationConfigProblems(
      config,
      path,
      { maxAgeMs: MAX_INTERRUPT_TIMEOUT_MS, maxNameLength: MAX_ID_LENGTH },
      gateTimeoutMs(config),
      typeId,
    ),
  );
  return problems;
}

/**
 * The bounds run options break (`RunOptions.configurable` of `POST /v1/runs`, or a fork's
 * `runOptionsOverlay.configurable`): `recursionLimit` (also under `run`) must be an integer from 1
 * to {@link MAX_NODE_EXECUTIONS}, `escalationThreshold` a number in [0, 1].
 */
export function runConfigurableProblems(configurable: unknown, path = ''): LimitProblem[] {
  if (!isRecord(configurable)) return [];
  const problems: LimitProblem[] = [];
  const recursion = intProblem(
    own(configurable, 'recursionLimit'),
    `${path}/recursionLimit`,
    1,
    MAX_NODE_EXECUTIONS,
  );
  if (recursion) problems.push(recursion);
  const run = own(configurable, 'run');
  if (isRecord(run)) {
    const nested = intProblem(
      own(run, 'recursionLimit'),
      `${path}/run/recursionLimit`,
      1,
      MAX_NODE_EXECUTIONS,
    );
    if (nested) problems.push(nested);
  }
  const threshold = own(configurable, 'escalationThreshold');
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1)) {
    problems.push({ path: `${path}/escalationThreshold`, message: 'must be a number from 0 to 1' });
  }
  return problems;
}

/**
 * The bounds a conversation turn breaks (the `turn` of a `ConversationResolve`,
 * `{operation, turn, outcome}`, RFC 0005 §D): `ts` an integer epoch-ms from 0 to
 * {@link MAX_TURN_TS_MS}, ids at most {@link MAX_TURN_ID_LENGTH} characters, `content` at most
 * {@link MAX_TURN_CONTENT_BYTES} as JSON. `[]` for any other resume value.
 */
export function conversationTurnProblems(resumeValue: unknown): LimitProblem[] {
  if (!isRecord(resumeValue)) return [];
  const turn = own(resumeValue, 'turn');
  if (!isRecord(turn)) return [];
  const problems: LimitProblem[] = [];
  const ts = intProblem(own(turn, 'ts'), '/turn/ts', 0, MAX_TURN_TS_MS);
  if (ts)
    problems.push({ path: ts.path, message: `must be an integer epoch-ms from 0 to ${MAX_TURN_TS_MS}` });
  for (const key of ['messageId', 'from', 'to', 'groupId', 'speakerId'] as const) {
    const v = own(turn, key);
    if (typeof v === 'string' && v.length > MAX_TURN_ID_LENGTH) {
      problems.push({ path: `/turn/${key}`, message: `must be at most ${MAX_TURN_ID_LENGTH} characters` });
    }
  }
  const content = own(turn, 'content');
  if (content !== undefined && utf8Length(JSON.stringify(content) ?? '') > MAX_TURN_CONTENT_BYTES) {
    problems.push({
      path: '/turn/content',
      message: `must be at most ${MAX_TURN_CONTENT_BYTES} bytes as JSON`,
    });
  }
  return problems;
}

function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether JSON text (UTF-8 bytes or a string) nests objects/arrays deeper than `max`. One pass,
 * no recursion and no parsing: brackets inside strings are skipped, so it can run on a body
 * before `JSON.parse` (malformed text is left to the parser). Multi-byte UTF-8 sequences never
 * contain ASCII bytes, so scanning bytes is exact.
 */
export function jsonDepthExceeds(text: Uint8Array | string, max: number = MAX_JSON_DEPTH): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The nesting depth of a parsed value (`{}` and `[]` are 1, a scalar 0), measured with an explicit
 * stack (no recursion), stopping as soon as it passes `max`: for values that did not come from
 * JSON text (a YAML document) and must be bounded before anything recursive walks them.
 */
export function valueDepthExceeds(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
