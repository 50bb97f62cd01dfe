import {
  closestField,
  definitionSchemaErrors,
  SUPPORTED_NODE_TYPES,
  unsupportedFeatures,
  withDefinitionDefaults,
  type DefinitionSchemaError,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { checkConversationSteps } from './conversation-step.checker';
import type { Diagnostic } from './diagnostic';
import { parseWorkflowSource, splitPointer, type WorkflowSource } from './workflow-source';

/** The outcome of validating a workflow file: the definition to register when there is no error. */
export interface WorkflowValidation {
  readonly ok: boolean;
  /** The definition with the defaults an author may leave out filled in (what `POST /v1/workflows` gets). */
  readonly definition?: Record<string, unknown>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Validates the text of a workflow file (JSON or YAML) before anything runs: syntax, the
 * `workflow-definition.schema.json` structure (missing and unknown fields), the conversation steps
 * (older-format fields, unknown config fields, `continue_from`), and what this host executes.
 * Every finding names the field, its JSON pointer and line:column, and what to write instead.
 */
export function validateWorkflowText(text: string): WorkflowValidation {
  const source = parseWorkflowSource(text);
  if (source.syntaxErrors.length > 0) return { ok: false, diagnostics: source.syntaxErrors };
  const value = source.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      diagnostics: [
        {
          severity: 'error',
          pointer: '',
          line: 1,
          col: 1,
          message: 'a workflow file holds one object (id, name, version, nodes, edges)',
        },
      ],
    };
  }
  const definition = withDefinitionDefaults(value) as Record<string, unknown>;
  const conversation = checkConversationSteps(definition, source);
  const claimed = new Set(conversation.map((d) => d.pointer));
  const schema = definitionSchemaErrors(definition)
    .filter((e) => !claimed.has(e.path))
    .map((e) => schemaDiagnostic(e, source));
  const diagnostics = [...conversation, ...schema];
  if (schema.length === 0)
    diagnostics.push(...hostDiagnostics(definition as unknown as WorkflowDefinition, source, claimed));
  diagnostics.sort((a, b) => a.line - b.line || a.col - b.col);
  const ok = !diagnostics.some((d) => d.severity === 'error');
  return ok ? { ok, definition, diagnostics } : { ok, diagnostics };
}

function schemaDiagnostic(e: DefinitionSchemaError, source: WorkflowSource): Diagnostic {
  const pos = source.positionOf(e.path);
  const base = { severity: 'error' as const, pointer: e.path, line: pos.line, col: pos.col };
  if (e.unknownField !== undefined) {
    const allowed = e.allowed ?? [];
    const near = closestField(e.unknownField, allowed);
    return {
      ...base,
      field: e.unknownField,
      message: 'is not a known field here',
      fix: near
        ? `write \`${near}\``
        : `remove it${allowed.length ? ` (known fields: ${allowed.slice(0, 14).join(', ')}${allowed.length > 14 ? ', …' : ''})` : ''}`,
    };
  }
  if (e.missingField !== undefined) {
    return { ...base, field: e.missingField, message: 'is required', fix: `add \`${e.missingField}\`` };
  }
  const field = lastSegment(e.path);
  return {
    ...base,
    ...(field !== undefined ? { field } : {}),
    message: e.message,
    ...(e.allowedValues
      ? { fix: `write one of ${e.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` }
      : {}),
  };
}

/** What the host refuses though the schema allows it (unknown node types, conditional edges, …). */
function hostDiagnostics(
  definition: WorkflowDefinition,
  source: WorkflowSource,
  claimed: ReadonlySet<string>,
): Diagnostic[] {
  return (
    unsupportedFeatures(definition)
      .filter((p) => !claimed.has(p.path))
      // The conversation node type is checked here, whether or not this build's contracts list it yet.
      .filter(
        (p) =>
          !(
            p.path.endsWith('/typeId') &&
            p.message.includes('agent.conversation') &&
            !SUPPORTED_NODE_TYPES.includes('agent.conversation')
          ),
      )
      .map((p) => {
        const pos = source.positionOf(p.path);
        const field = lastSegment(p.path);
        return {
          severity: 'error' as const,
          pointer: p.path,
          ...(field !== undefined ? { field } : {}),
          line: pos.line,
          col: pos.col,
          message: p.message,
        };
      })
  );
}

function lastSegment(pointer: string): string | undefined {
  const segments = splitPointer(pointer);
  const last = segments[segments.length - 1];
  return last !== undefined && !/^\d+$/.test(last) ? last : undefined;
}
