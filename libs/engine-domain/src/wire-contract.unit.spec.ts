import Ajv2020 from 'ajv/dist/2020';
import {
  conversationRefusal,
  CONFORMANCE_FIXTURES,
  SEEDED_FIXTURES,
  SUPPORTED_NODE_TYPES,
  assertRunEvent,
  validateWorkflowDefinition,
  withDefinitionDefaults,
} from '@openwop/contracts';
import suspendRequestSchema from '../../contracts/src/schemas/suspend-request.schema.json';
import { BUILTIN_NODES } from './builtin-nodes';
import { fixture, resume, start, workflow } from './test-kit.spec';

const validateSuspendRequest = new Ajv2020({ strict: false }).compile(suspendRequestSchema);

describe('engine-domain and the wire contract stay in step', () => {
  it('the built-in node registry is exactly SUPPORTED_NODE_TYPES', () => {
    expect(BUILTIN_NODES.map((n) => n.typeId).sort()).toEqual([...SUPPORTED_NODE_TYPES].sort());
  });

  it('seeds every fixture, and all fixtures are schema-valid (the oversize council is refused at run creation, by the host limit, with validation_error naming the cap)', () => {
    expect(SEEDED_FIXTURES.map((f) => f.id).sort()).toEqual(CONFORMANCE_FIXTURES.map((f) => f.id).sort());
    for (const f of CONFORMANCE_FIXTURES) expect(validateWorkflowDefinition(f)).toEqual([]);
    expect(
      conversationRefusal(
        CONFORMANCE_FIXTURES.find((f) => f.id === 'conformance-multi-party-council-oversize')!,
      ),
    ).toMatchObject({
      code: 'validation_error',
      details: {
        reason: 'conversation_roster_exceeded',
        nodeId: 'convo',
        participants: 64,
        maxParticipants: 8,
        errors: [{ path: '/nodes/0/config/participants' }],
      },
    });
    expect(
      conversationRefusal(CONFORMANCE_FIXTURES.find((f) => f.id === 'conformance-multi-party-council')!),
    ).toBeUndefined();
    expect(
      conversationRefusal(CONFORMANCE_FIXTURES.find((f) => f.id === 'conformance-multi-party-council')!, {
        maxParticipants: 8,
        multiParty: false,
      }),
    ).toMatchObject({
      code: 'capability_required',
      details: { requiredCapability: 'multiPartyConversation', nodeId: 'convo' },
    });
  });

  it('every interrupt the built-in nodes request is a valid suspend-request, and every event a valid RunEventDoc', async () => {
    const runs = [
      await start(fixture('conformance-approval-timeout')),
      await start(fixture('conformance-clarification')),
      await start(fixture('conformance-agent-low-confidence')),
      await start(
        workflow([
          { id: 'e', typeId: 'core.externalEvent', config: { eventType: 'x', correlation: { id: 1 } } },
        ]),
      ),
      await start(workflow([{ id: 'c', typeId: 'core.custom', config: { customKind: 'k' } }])),
      await start(workflow([{ id: 'talk', typeId: 'core.conversationGate' }])),
    ];
    for (const run of runs) {
      const { kind, key, data, timeoutMs, resumeSchema } = run.openInterrupt!;
      const request = {
        kind,
        key,
        data,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(resumeSchema ? { resumeSchema } : {}),
      };
      expect({
        kind,
        valid: validateSuspendRequest(request),
        errors: validateSuspendRequest.errors ?? null,
      }).toEqual({ kind, valid: true, errors: null });
      const resumed = await resume(run.state, { action: 'accept', answers: {} });
      for (const e of [...run.events, ...resumed.events]) expect(() => assertRunEvent(e)).not.toThrow();
    }
  });

  it('registration refuses unsupported features, naming the field', () => {
    const base = fixture('conformance-noop');
    const bad = {
      ...base,
      nodes: [
        ...base.nodes,
        {
          id: 'd',
          typeId: 'core.delay',
          name: 'D',
          position: { x: 0, y: 0 },
          config: { delayMs: -10 },
          inputs: {},
        },
      ],
      edges: [{ id: 'x', sourceNodeId: 'noop', targetNodeId: 'ghost' }],
    };
    expect(validateWorkflowDefinition(bad).map((p) => p.path)).toEqual([
      '/nodes/1/config/delayMs',
      '/edges/0/targetNodeId',
    ]);
    const { version: _v, ...noVersion } = base;
    expect(validateWorkflowDefinition(noVersion)).toEqual([{ path: '/version', message: 'is required' }]);
    const terse = {
      id: 'terse',
      name: 'T',
      version: '1',
      nodes: [{ id: 'a', typeId: 'core.noop' }],
      edges: [],
    };
    expect(validateWorkflowDefinition(terse).map((p) => p.path)).toEqual(
      expect.arrayContaining(['/nodes/0/name', '/triggers']),
    );
    expect(validateWorkflowDefinition(withDefinitionDefaults(terse))).toEqual([]);
    expect(
      validateWorkflowDefinition({ ...base, nodes: [{ ...base.nodes[0], typeId: 'vendor.x' }] }).map(
        (p) => p.path,
      ),
    ).toEqual(['/nodes/0/typeId']);
  });
});
