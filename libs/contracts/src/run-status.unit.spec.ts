import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RUN_EVENT_TYPES, TERMINAL_RUN_EVENT_TYPES } from './run-event';
import { isTerminalRunStatus, RUN_STATUSES, TERMINAL_RUN_STATUSES } from './run-status';

const schema = (name: string) =>
  JSON.parse(readFileSync(resolve(__dirname, 'schemas', name), 'utf8')) as {
    properties: { status: { enum: string[] } };
  };

describe('run statuses', () => {
  it('are the statuses of run-snapshot.schema.json, in its order', () => {
    expect([...RUN_STATUSES]).toEqual(schema('run-snapshot.schema.json').properties.status.enum);
  });

  it('end with exactly the statuses of the terminal run events', () => {
    expect(TERMINAL_RUN_STATUSES.map((s) => `run.${s}`)).toEqual([...TERMINAL_RUN_EVENT_TYPES]);
    for (const type of TERMINAL_RUN_EVENT_TYPES) expect(RUN_EVENT_TYPES).toContain(type);
    for (const status of TERMINAL_RUN_STATUSES) expect(RUN_STATUSES).toContain(status);
  });

  it('call only completed, failed and cancelled terminal', () => {
    expect(RUN_STATUSES.filter(isTerminalRunStatus)).toEqual(['completed', 'failed', 'cancelled']);
    for (const other of ['cancelling', 'waiting-approval', 'paused', 'timed-out', undefined, 3]) {
      expect(isTerminalRunStatus(other)).toBe(false);
    }
  });
});
