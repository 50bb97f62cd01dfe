import type { ValidateFunction } from 'ajv/dist/2020';
import { conversationStepProblems } from './agent-conversation-config';
import { newLinearAjv } from './linear-schema';
import agentRefSchema from './schemas/agent-ref.schema.json';
import workflowDefinitionSchema from './schemas/workflow-definition.schema.json';
import { workflowLimitProblems } from './limits';
import type { SchemaViolation } from './schema-validation';
import { unsupportedFeatures, type WorkflowDefinition } from './workflow';

let validator: ValidateFunction | undefined;

/** Compiled lazily: most processes never register a workflow. */
function definitionValidator(): ValidateFunction {
  if (validator) return validator;
  const ajv = newLinearAjv({ allErrors: true, verbose: true });
  ajv.addSchema(agentRefSchema);
  // The definition schema references `prompt-ref.schema.json`, which the copied spec set does not
  // ship; only `defaults.promptRefs` uses it, so any object is accepted there.
  ajv.addSchema({ $id: 'https://openwop.dev/spec/v1/prompt-ref.schema.json', type: 'object' });
  validator = ajv.compile(workflowDefinitionSchema);
  return validator;
}

/**
 * Fills what an author may leave out of a definition before it is checked and stored: the
 * presentational node fields (`name` ← id, `position` ← origin), empty node `config`/`inputs`, and
 * empty top-level `triggers`/`variables`/`metadata`/`settings`. `id`, `name`, `version`, `nodes`
 * and `edges` stay required. Anything that is not an object is returned unchanged.
 */
export function withDefinitionDefaults(value: unknown): unknown {
  if (!isObject(value)) return value;
  const nodes = Array.isArray(value.nodes)
    ? value.nodes.map((n: unknown) =>
        isObject(n)
          ? {
              ...n,
              name: n.name ?? n.id,
              position: n.position ?? { x: 0, y: 0 },
              config: n.config ?? {},
              inputs: n.inputs ?? {},
            }
          : n,
      )
    : value.nodes;
  return {
    ...value,
    ...(nodes !== undefined ? { nodes } : {}),
    triggers: value.triggers ?? [],
    variables: value.variables ?? [],
    metadata: value.metadata ?? {},
    settings: value.settings ?? {},
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One schema error of a definition, with what a tool needs to explain it (`unknownField`, `allowed`). */
export interface DefinitionSchemaError {
  /** JSON pointer of the offending value (for a missing or unknown field: the field itself). */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
  /** `additionalProperties`: the field the schema does not know. */
  readonly unknownField?: string;
  /** `required`: the missing field. */
  readonly missingField?: string;
  /** The field names the schema allows at that place, when it lists them. */
  readonly allowed?: readonly string[];
  /** `enum`: the allowed values. */
  readonly allowedValues?: readonly unknown[];
}

/**
 * The `workflow-definition.schema.json` errors of `value` (after {@link withDefinitionDefaults} when
 * the author may leave fields out), one per problem, for tools that explain them (the `wop` CLI).
 */
export function definitionSchemaErrors(value: unknown): DefinitionSchemaError[] {
  const validate = definitionValidator();
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => {
    const props = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    const allowed = props ? { allowed: Object.keys(props) } : {};
    switch (e.keyword) {
      case 'required': {
        const field = String((e.params as { missingProperty: unknown }).missingProperty);
        return {
          path: `${e.instancePath}/${field}`,
          keyword: e.keyword,
          message: 'is required',
          missingField: field,
          ...allowed,
        };
      }
      case 'additionalProperties': {
        const field = String((e.params as { additionalProperty: unknown }).additionalProperty);
        return {
          path: `${e.instancePath}/${field}`,
          keyword: e.keyword,
          message: 'is not a known field',
          unknownField: field,
          ...allowed,
        };
      }
      case 'enum':
        return {
          path: e.instancePath,
          keyword: e.keyword,
          message: e.message ?? 'invalid',
          allowedValues: (e.params as { allowedValues: unknown[] }).allowedValues,
        };
      default:
        return { path: e.instancePath, keyword: e.keyword, message: e.message ?? 'invalid' };
    }
  });
}

/**
 * Checks a workflow definition for registration (after {@link withDefinitionDefaults}): first the
 * host's size bounds (`workflowLimitProblems`), then `workflow-definition.schema.json`
 * (required fields, shapes), then against what this host executes ({@link unsupportedFeatures}) and
 * the config of its `agent.conversation` steps ({@link conversationStepProblems}: its errors, with
 * what to write instead; a missing `provider` is fine, the host uses its own). Returns the
 * violations, each naming the offending field by JSON pointer; empty when it may be registered.
 */
export function validateWorkflowDefinition(value: unknown): SchemaViolation[] {
  const bounds = workflowLimitProblems(value);
  if (bounds.length > 0) return bounds;
  const validate = definitionValidator();
  if (!validate(value)) {
    return (validate.errors ?? []).map((e) =>
      e.keyword === 'required'
        ? { path: `${e.instancePath}/${String(e.params.missingProperty)}`, message: 'is required' }
        : { path: e.instancePath, message: e.message ?? 'invalid' },
    );
  }
  const conversation = conversationStepProblems(value as Record<string, unknown>, { requireProvider: false })
    .filter((p) => p.severity === 'error')
    .map((p) => ({ path: p.pointer, message: p.fix ? `${p.message}; fix: ${p.fix}` : p.message }));
  return [...unsupportedFeatures(value as WorkflowDefinition), ...conversation];
}
