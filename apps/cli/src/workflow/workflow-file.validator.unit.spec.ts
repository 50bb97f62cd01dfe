import { formatDiagnostic, type Diagnostic } from './diagnostic';
import { validateWorkflowText } from './workflow-file.validator';

/** A two-step YAML workflow; `extra` lines go into the second (conversation) step's config. */
function yamlWith(extra: string[], node: string[] = []): string {
  return [
    'id: chat',
    'name: Chat',
    'version: "1.0.0"',
    'nodes:',
    '  - id: intro',
    '    typeId: agent.conversation',
    '    config:',
    '      provider: scripted',
    '      script: ["Hello"]',
    '  - id: plan',
    '    typeId: agent.conversation',
    ...node.map((l) => `    ${l}`),
    '    config:',
    '      provider: scripted',
    '      script: ["Noted."]',
    '      continue_from: intro',
    ...extra.map((l) => `      ${l}`),
    'edges:',
    '  - { id: e1, sourceNodeId: intro, targetNodeId: plan }',
    '',
  ].join('\n');
}

const errors = (text: string): Diagnostic[] =>
  validateWorkflowText(text).diagnostics.filter((d) => d.severity === 'error');

describe('validateWorkflowText: fields of the older conversation format', () => {
  // Line 16 is the first extra config line of step `plan` (see yamlWith), column 7 its key.
  const cases: [field: string, yamlValue: string, fix: RegExp][] = [
    ['max_turns', '5', /^use timeout_ms or close the conversation with an empty line$/],
    ['stop_condition', '"done"', /closes on an empty line/],
    ['inject_context', 'true', /continue_from/],
    ['strategy', 'round-robin', /one agent\.conversation step each/],
    ['max_context_tokens', '4000', /leave out continue_from/],
    ['initial_prompt', '"Plan a trip"', /^use system_prompt$/],
  ];

  it.each(cases)(
    'refuses %s in a conversation step config, naming field, pointer, line:column and the fix',
    (field, value, fix) => {
      const result = validateWorkflowText(yamlWith([`${field}: ${value}`]));
      expect(result.ok).toBe(false);
      expect(result.definition).toBeUndefined();
      expect(errors(yamlWith([`${field}: ${value}`]))).toEqual([
        expect.objectContaining({
          field,
          pointer: `/nodes/1/config/${field}`,
          line: 16,
          col: 7,
          fix: expect.stringMatching(fix),
        }),
      ]);
      const line = formatDiagnostic('chat.yaml', result.diagnostics[0]!);
      expect(line).toContain(`chat.yaml:16:7: error: field \`${field}\` at /nodes/1/config/${field}`);
      expect(line).toMatch(/ — fix: /);
    },
  );

  it.each(cases)('refuses %s written on the conversation node itself', (field, value) => {
    expect(errors(yamlWith([], [`${field}: ${value}`]))).toEqual([
      expect.objectContaining({ field, pointer: `/nodes/1/${field}`, line: 12, col: 5 }),
    ]);
  });

  it('gives JSON files the same findings, with JSON line:column', () => {
    const json = JSON.stringify(
      {
        id: 'chat',
        name: 'Chat',
        version: '1',
        nodes: [
          {
            id: 'c',
            typeId: 'agent.conversation',
            config: { provider: 'scripted', script: ['x'], initial_prompt: 'hi' },
          },
        ],
        edges: [],
      },
      null,
      2,
    );
    const lines = json.split('\n');
    const line = lines.findIndex((l) => l.includes('initial_prompt')) + 1;
    const col = lines[line - 1]!.indexOf('"initial_prompt"') + 1;
    expect(errors(json)).toEqual([
      expect.objectContaining({
        field: 'initial_prompt',
        pointer: '/nodes/0/config/initial_prompt',
        line,
        col,
        fix: 'use system_prompt',
      }),
    ]);
  });
});

describe('validateWorkflowText: structure', () => {
  it('accepts a valid workflow and returns the definition with defaults filled in', () => {
    const result = validateWorkflowText(yamlWith([]));
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.definition).toMatchObject({
      id: 'chat',
      triggers: [],
      nodes: [{ id: 'intro', name: 'intro', position: { x: 0, y: 0 } }, { id: 'plan' }],
    });
  });

  it('names an unknown field of a conversation config and suggests the right spelling', () => {
    expect(errors(yamlWith(['systemPrompt: "x"']))).toEqual([
      expect.objectContaining({
        field: 'systemPrompt',
        pointer: '/nodes/1/config/systemPrompt',
        line: 16,
        col: 7,
        fix: 'write `system_prompt`',
      }),
    ]);
  });

  it('names an unknown top-level field (schema) with its position and what to write', () => {
    const text = `${yamlWith([])}node: []\n`;
    expect(errors(text)).toEqual([
      expect.objectContaining({ field: 'node', pointer: '/node', line: 18, col: 1, fix: 'write `nodes`' }),
    ]);
  });

  it('names a missing required field at its parent', () => {
    const text = yamlWith([]).replace('version: "1.0.0"\n', '');
    expect(errors(text)).toEqual([
      expect.objectContaining({
        field: 'version',
        pointer: '/version',
        line: 1,
        col: 1,
        fix: 'add `version`',
      }),
    ]);
  });

  it('requires provider, and script for the scripted provider', () => {
    const text = yamlWith([]).replace('      provider: scripted\n      script: ["Noted."]\n', '');
    expect(errors(text).map((d) => [d.pointer, d.line])).toEqual([['/nodes/1/config/provider', 12]]);
    const noScript = yamlWith([]).replace('      script: ["Noted."]\n', '');
    expect(errors(noScript)).toEqual([
      expect.objectContaining({
        field: 'script',
        pointer: '/nodes/1/config/script',
        message: expect.stringContaining('provider scripted'),
      }),
    ]);
  });

  it('reports a syntax error with its position', () => {
    expect(validateWorkflowText('id: [unclosed\nname: x\n').diagnostics[0]).toMatchObject({
      severity: 'error',
      message: expect.stringContaining('cannot parse'),
    });
  });
});

describe('validateWorkflowText: continue_from', () => {
  it('refuses a step that does not exist', () => {
    expect(errors(yamlWith([]).replace('continue_from: intro', 'continue_from: nowhere'))).toEqual([
      expect.objectContaining({
        field: 'continue_from',
        line: 15,
        message: expect.stringContaining('not a step'),
        fix: 'write continue_from: intro',
      }),
    ]);
  });

  it('refuses a step that is not a conversation step', () => {
    const text = yamlWith([])
      .replace('continue_from: intro', 'continue_from: gate')
      .replace('edges:\n', 'edges:\n  - { id: e0, sourceNodeId: gate, targetNodeId: plan }\n')
      .replace('  - id: plan\n', '  - id: gate\n    typeId: core.noop\n  - id: plan\n');
    expect(errors(text)).toEqual([
      expect.objectContaining({
        field: 'continue_from',
        message: expect.stringContaining('not an agent.conversation step'),
      }),
    ]);
  });

  it('refuses a conversation step that comes later (or is not connected)', () => {
    const text = yamlWith([]).replace(
      '  - id: intro\n    typeId: agent.conversation\n    config:\n',
      '  - id: intro\n    typeId: agent.conversation\n    config:\n      continue_from: plan\n',
    );
    expect(errors(text)).toEqual([
      expect.objectContaining({
        pointer: '/nodes/0/config/continue_from',
        message: expect.stringContaining('does not come before `intro`'),
      }),
    ]);
  });

  it('warns (not an error) when a later conversation step starts fresh', () => {
    const result = validateWorkflowText(yamlWith([]).replace('      continue_from: intro\n', ''));
    expect(result.ok).toBe(true);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        pointer: '/nodes/1/config',
        message: expect.stringContaining('starts fresh'),
        fix: 'add continue_from: intro to carry it',
      }),
    ]);
  });
});
