import { credentialQuestionProblems, credentialSchemaProblems } from './credential';
import { untrustedSchemaProblem } from './linear-schema';
import { MAX_DELAY_MS } from './limits';

/** The parts of an OpenWOP `WorkflowDefinition` the host reads (`workflow-definition.schema.json`). */
export interface WorkflowNode {
  readonly id: string;
  readonly typeId: string;
  readonly name?: string;
  readonly position?: { readonly x: number; readonly y: number };
  readonly config?: Record<string, unknown>;
  readonly inputs?: Record<string, unknown>;
  /** The agent bound to the node (`agent-ref.schema.json`), when it is an agent. */
  readonly agent?: { readonly agentId: string } & Record<string, unknown>;
}

/** Edge trigger rules (`WorkflowEdge.triggerRule`); `all_success` when absent. */
export const TRIGGER_RULES = [
  'all_success',
  'any_success',
  'all_complete',
  'none_failed',
  'any_failed',
] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

export interface WorkflowEdge {
  readonly id?: string;
  readonly sourceNodeId: string;
  readonly targetNodeId: string;
  readonly sourceOutput?: string;
  readonly targetInput?: string;
  readonly condition?: unknown;
  readonly label?: string;
  readonly triggerRule?: TriggerRule;
}

export interface WorkflowDefinition {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly nodes: readonly WorkflowNode[];
  readonly edges: readonly WorkflowEdge[];
  readonly triggers?: readonly unknown[];
  readonly variables?: readonly unknown[];
  readonly channels?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly settings?: Record<string, unknown>;
}

/**
 * Node typeIds this host executes today (the engine's built-in node registry; a unit test keeps the
 * two equal). Workflows using any other typeId are refused at registration with `validation_error`,
 * so no run can start that the engine cannot finish.
 */
export const SUPPORTED_NODE_TYPES: readonly string[] = [
  'core.noop',
  'core.identity',
  'core.fail',
  'core.delay',
  'core.approvalGate',
  'core.clarificationGate',
  'core.externalEvent',
  'core.conversationGate',
  'core.custom',
  'agent.conversation',
  'agent.dialogue',
  'agent.council',
  'conformance.requiresMissing',
  'core.subWorkflow',
  'conformance.artifact.emit',
  'core.credential',
];

/** One reason a definition cannot run here, named by JSON pointer (`details.errors[]` of a `validation_error`). */
export interface UnsupportedFeature {
  readonly path: string;
  readonly message: string;
}

/**
 * What in a (schema-valid) definition this host cannot execute: unknown node types, duplicate node
 * ids, edges to unknown nodes, conditional edges, expression inputs, a `core.delay` outside 0 ..
 * {@link MAX_DELAY_MS}, multi-party conversation rosters (RFC 0101), and graphs with no entry node.
 * Cycles are supported (a loop back over `any_*` edges). Empty when the engine runs it to the end.
 */
export function unsupportedFeatures(definition: WorkflowDefinition): UnsupportedFeature[] {
  const problems: UnsupportedFeature[] = [];
  const ids = new Set<string>();
  definition.nodes.forEach((node, i) => {
    if (ids.has(node.id)) problems.push({ path: `/nodes/${i}/id`, message: `duplicate node id ${node.id}` });
    ids.add(node.id);
    if (!SUPPORTED_NODE_TYPES.includes(node.typeId)) {
      problems.push({
        path: `/nodes/${i}/typeId`,
        message: `node type ${node.typeId} is not supported by this host`,
      });
    }
    problems.push(...nodeFeatureProblems(node, i));
  });
  const targets = new Set<string>();
  definition.edges.forEach((edge, i) => {
    if (!ids.has(edge.sourceNodeId)) {
      problems.push({
        path: `/edges/${i}/sourceNodeId`,
        message: `edge source ${edge.sourceNodeId} is not a node`,
      });
    }
    if (!ids.has(edge.targetNodeId)) {
      problems.push({
        path: `/edges/${i}/targetNodeId`,
        message: `edge target ${edge.targetNodeId} is not a node`,
      });
    }
    if (edge.condition !== undefined) {
      problems.push({
        path: `/edges/${i}/condition`,
        message: 'conditional edges are not supported by this host',
      });
    }
    if (edge.triggerRule !== undefined && !TRIGGER_RULES.includes(edge.triggerRule)) {
      problems.push({
        path: `/edges/${i}/triggerRule`,
        message: `unknown trigger rule ${String(edge.triggerRule)}`,
      });
    }
    targets.add(edge.targetNodeId);
  });
  if (definition.nodes.length > 0 && definition.nodes.every((n) => targets.has(n.id))) {
    problems.push({
      path: '/edges',
      message: 'the graph has no entry node (every node has an incoming edge)',
    });
  }
  return problems;
}

/**
 * An agent roster (RFC 0101): members with unique `agentId`s; a dialogue needs two voices.
 */
function rosterProblems(participants: unknown, path: string, min: number): UnsupportedFeature[] {
  if (!Array.isArray(participants))
    return [{ path, message: 'must be an array of {agentId, name?, system_prompt?, script?}' }];
  // The size cap is the host's (conversationRefusal: conversation_roster_exceeded), not the definition's shape.
  const problems: UnsupportedFeature[] = [];
  if (participants.length < min) problems.push({ path, message: `needs at least ${min} participants` });
  const seen = new Set<string>();
  participants.forEach((p: unknown, j) => {
    const agentId = (p as { agentId?: unknown } | null)?.agentId;
    if (typeof agentId !== 'string' || agentId === '')
      problems.push({ path: `${path}/${j}/agentId`, message: 'must be a non-empty string' });
    else if (seen.has(agentId))
      problems.push({ path: `${path}/${j}/agentId`, message: `names ${agentId} twice` });
    else seen.add(agentId);
  });
  return problems;
}

/** Node config fields that hold a JSON Schema the host compiles or hands on (`questions[].schema` too). */
const SCHEMA_FIELDS = ['resumeSchema', 'answerSchema', 'turnSchema', 'outcomeSchema'] as const;

/**
 * The JSON Schemas a node's config carries, each checked as the host will use it: bounded in size
 * and depth, every pattern runnable in linear time (no backreferences or lookaround), valid draft
 * 2020-12. A schema refused here would otherwise leave an interrupt no answer can resolve.
 */
function embeddedSchemaProblems(config: Record<string, unknown>, at: string): UnsupportedFeature[] {
  const found: [string, unknown][] = SCHEMA_FIELDS.filter((f) => config[f] !== undefined).map((f) => [
    `${at}/${f}`,
    config[f],
  ]);
  if (Array.isArray(config.questions)) {
    config.questions.forEach((q: unknown, j) => {
      const schema = (q as { schema?: unknown } | null)?.schema;
      if (schema !== undefined) found.push([`${at}/questions/${j}/schema`, schema]);
    });
  }
  const problems: UnsupportedFeature[] = [];
  for (const [path, schema] of found) {
    const problem = untrustedSchemaProblem(schema);
    if (problem) problems.push({ path: `${path}${problem.path}`, message: problem.message });
  }
  // RFC 0199 §C.6: no interrupt asks for credential material; a credential comes through `core.credential`.
  for (const f of SCHEMA_FIELDS) problems.push(...credentialSchemaProblems(config[f], `${at}/${f}`));
  problems.push(...credentialQuestionProblems(config.questions, `${at}/questions`));
  return problems;
}

function nodeFeatureProblems(node: WorkflowNode, i: number): UnsupportedFeature[] {
  const problems: UnsupportedFeature[] = [];
  const config = node.config ?? {};
  if (node.typeId === 'core.delay' && config.delayMs !== undefined && !isDelayMs(config.delayMs)) {
    problems.push({
      path: `/nodes/${i}/config/delayMs`,
      message: `core.delay needs delayMs as an integer from 0 to ${MAX_DELAY_MS}`,
    });
  }
  if (node.typeId === 'core.conversationGate' && config.participants !== undefined) {
    problems.push(...rosterProblems(config.participants, `/nodes/${i}/config/participants`, 1));
  }
  if (node.typeId === 'agent.dialogue' || node.typeId === 'agent.council') {
    problems.push(
      ...rosterProblems(
        config.participants,
        `/nodes/${i}/config/participants`,
        node.typeId === 'agent.dialogue' ? 2 : 1,
      ),
    );
  }
  if (node.typeId === 'core.credential')
    problems.push(...credentialNodeProblems(config, `/nodes/${i}/config`));
  problems.push(...embeddedSchemaProblems(config, `/nodes/${i}/config`));
  for (const [port, value] of Object.entries(node.inputs ?? {})) {
    if ((value as { type?: unknown } | null)?.type === 'expression') {
      problems.push({
        path: `/nodes/${i}/inputs/${port}`,
        message: 'expression inputs are not supported by this host',
      });
    }
  }
  return problems;
}

/** `core.credential` needs `provider` and `scopes` (RFC 0199 §C.2), and at most a `{ref, scope?}` reference. */
function credentialNodeProblems(config: Record<string, unknown>, at: string): UnsupportedFeature[] {
  const problems: UnsupportedFeature[] = [];
  if (typeof config.provider !== 'string' || config.provider === '')
    problems.push({
      path: `${at}/provider`,
      message: 'core.credential needs provider as a non-empty string',
    });
  const scopes = config.scopes;
  if (
    !Array.isArray(scopes) ||
    !scopes.every((s) => typeof s === 'string' && s !== '') ||
    new Set(scopes).size !== scopes.length
  )
    problems.push({
      path: `${at}/scopes`,
      message: 'core.credential needs scopes as distinct non-empty strings',
    });
  const ref = config.credentialRef as { ref?: unknown } | undefined | null;
  if (
    ref !== undefined &&
    (typeof ref !== 'object' || ref === null || typeof ref.ref !== 'string' || ref.ref === '')
  )
    problems.push({ path: `${at}/credentialRef`, message: 'must be {ref, scope?}' });
  return problems;
}

/** Whether `value` is a `core.delay` duration this host waits for: an integer from 0 to {@link MAX_DELAY_MS}. */
export function isDelayMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DELAY_MS;
}
