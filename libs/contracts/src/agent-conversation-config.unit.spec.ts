import { conversationStepProblems } from './agent-conversation-config';
import { validateWorkflowDefinition, withDefinitionDefaults } from './workflow-validation';

const definition = (...configs: Record<string, unknown>[]) => ({
  id: 'talks',
  name: 'Talks',
  version: '1.0.0',
  nodes: configs.map((config, i) => ({ id: `talk${i}`, typeId: 'agent.conversation', config })),
  edges: configs
    .slice(1)
    .map((_, i) => ({ id: `e${i}`, sourceNodeId: `talk${i}`, targetNodeId: `talk${i + 1}` })),
});

const errors = (d: Record<string, unknown>, requireProvider = false) =>
  conversationStepProblems(d, { requireProvider }).filter((p) => p.severity === 'error');

describe('conversationStepProblems (the agent.conversation config schema)', () => {
  it('accepts every field the host node reads, in either spelling', () => {
    const config = {
      provider: 'openai',
      model: 'm',
      agent_id: 'bot',
      name: 'Bot',
      system_prompt: 'Be brief.',
      prompt: 'Hi',
      timeout_ms: 60_000,
      max_silence_ms: 5_000,
    };
    expect(errors(definition(config), true)).toEqual([]);
    expect(errors(definition({ script: ['x'], timeoutMs: 1, maxSilenceMs: 1, topic: 't' }))).toEqual([]);
  });

  it('refuses the older format with what to write instead, and names the closest field of a misspelt one', () => {
    expect(
      errors(definition({ provider: 'scripted', script: ['x'], max_turns: 5, sytem_prompt: 'x' })),
    ).toEqual([
      expect.objectContaining({
        pointer: '/nodes/0/config/max_turns',
        field: 'max_turns',
        fix: 'use timeout_ms or close the conversation with an empty line',
      }),
      expect.objectContaining({ pointer: '/nodes/0/config/sytem_prompt', fix: 'write `system_prompt`' }),
    ]);
  });

  it('requires a provider only when asked to (the command line does; the host uses its own)', () => {
    expect(errors(definition({ script: ['x'] }))).toEqual([]);
    expect(errors(definition({ script: ['x'] }), true)).toEqual([
      expect.objectContaining({
        pointer: '/nodes/0/config/provider',
        message: 'is required on conversation step `talk0`',
      }),
    ]);
  });

  it('checks the provider, the script and the field types', () => {
    const found = errors(definition({ provider: 'gpt', script: 'hi', system_prompt: 3, timeout_ms: 0 })).map(
      (p) => p.pointer,
    );
    expect(found).toEqual([
      '/nodes/0/config/provider',
      '/nodes/0/config/script',
      '/nodes/0/config/system_prompt',
      '/nodes/0/config/timeout_ms',
    ]);
    expect(errors(definition({ provider: 'scripted' }))).toEqual([
      expect.objectContaining({
        pointer: '/nodes/0/config/script',
        message: expect.stringContaining('provider scripted'),
      }),
    ]);
  });

  it('lets continue_from name only an earlier conversation step, and warns when a later step starts fresh', () => {
    expect(errors(definition({}, { continue_from: 'talk0' }))).toEqual([]);
    expect(errors(definition({ continue_from: 'talk1' }, {}))).toEqual([
      expect.objectContaining({
        pointer: '/nodes/0/config/continue_from',
        message: expect.stringContaining('does not come before'),
      }),
    ]);
    expect(conversationStepProblems(definition({}, {}), { requireProvider: false })).toEqual([
      expect.objectContaining({
        severity: 'warning',
        pointer: '/nodes/1/config',
        fix: 'add continue_from: talk0 to carry it',
      }),
    ]);
  });
});

describe('workflow registration checks conversation steps with the same schema', () => {
  it('refuses a step the command line refuses, naming the field and the fix', () => {
    expect(
      validateWorkflowDefinition(withDefinitionDefaults(definition({ script: ['x'], max_turns: 5 }))),
    ).toEqual([
      {
        path: '/nodes/0/config/max_turns',
        message: expect.stringMatching(/older conversation format.*; fix: use timeout_ms/),
      },
    ]);
  });

  it('registers a step without a provider, and never refuses for a warning', () => {
    expect(validateWorkflowDefinition(withDefinitionDefaults(definition({ script: ['x'] }, {})))).toEqual([]);
  });
});
