import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RUN_EVENT_TYPES, RUN_STATUSES, type RunEvent, type RunEventPayloads } from './run-events';

// The committed run event types are what the generator makes of the schemas today: change a schema
// or the generator without running `node tools/sdk/generate-run-event-types.mts` and this fails.

const ROOT = resolve(__dirname, '../../../..');

describe('generated run event types', () => {
  it('match what tools/sdk/generate-run-event-types.mts writes from the schemas', () => {
    const fresh = execFileSync(process.execPath, ['tools/sdk/generate-run-event-types.mts', '--stdout'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const committed = readFileSync(resolve(ROOT, 'libs/sdk/src/generated/run-events.ts'), 'utf8');
    expect(fresh.length).toBeGreaterThan(1000);
    expect(committed).toBe(fresh);
  });

  it('list every event type and run status of the schemas', () => {
    const schema = (name: string): Record<string, unknown> =>
      JSON.parse(readFileSync(resolve(ROOT, 'libs/contracts/src/schemas', name), 'utf8')) as Record<string, unknown>;
    const envelope = schema('run-event.schema.json') as { $defs: { RunEventType: { enum: string[] } } };
    const snapshot = schema('run-snapshot.schema.json') as { properties: { status: { enum: string[] } } };
    expect([...RUN_EVENT_TYPES]).toEqual(envelope.$defs.RunEventType.enum);
    expect([...RUN_STATUSES]).toEqual(snapshot.properties.status.enum);
  });

  it('narrow the payload by type', () => {
    const summary = (e: RunEvent): string => {
      switch (e.type) {
        case 'interrupt.requested':
          return `${e.payload.kind} ${e.payload.interruptId}`;
        case 'run.failed':
          return e.payload.error.code;
        case 'approval.requested':
          return e.payload.actions.join(',');
        default:
          return e.type;
      }
    };
    const base = { eventId: 'e', runId: 'r', timestamp: '2026-01-01T00:00:00.000Z', sequence: 1 };
    const interrupt: RunEventPayloads['interrupt.requested'] = {
      runId: 'r',
      nodeId: 'review',
      interruptId: 'r:review:0',
      requestedAt: base.timestamp,
      kind: 'approval',
      key: 'k',
      data: { artifactId: 'a', artifactType: 't', title: 'T', actions: ['accept', 'reject'] },
    };
    expect(summary({ ...base, type: 'interrupt.requested', payload: interrupt })).toBe('approval r:review:0');
    expect(summary({ ...base, type: 'run.failed', payload: { error: { code: 'boom', message: 'm' } } })).toBe('boom');
    expect(summary({ ...base, type: 'node.started', payload: { nodeId: 'n', typeId: 'core.noop' } })).toBe('node.started');
  });
});
