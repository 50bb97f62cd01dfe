import type { RunEventDoc } from '@openwop/contracts';

// Run events as the engine writes them, for the projector's integration specs.

/** Event `sequence` of `runId`, stamped one second per sequence from 2026-11-22T00:00:00Z. */
export const runEventDoc = (
  runId: string,
  sequence: number,
  type: RunEventDoc['type'],
  payload: unknown = {},
  nodeId?: string,
): RunEventDoc => ({
  eventId: `${runId}:${sequence}`,
  runId,
  type,
  payload,
  sequence,
  timestamp: new Date(Date.UTC(2026, 10, 22, 0, 0, sequence)).toISOString(),
  ...(nodeId ? { nodeId } : {}),
});

/** A run of three noop nodes; `poisoned` puts `{ poison: true }` in node b's outputs (a marker a spec's constraint refuses). */
export const noopRun = (runId: string, poisoned = false): RunEventDoc[] => [
  runEventDoc(runId, 0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
  runEventDoc(runId, 1, 'node.started', { nodeId: 'a', typeId: 'core.noop' }, 'a'),
  runEventDoc(runId, 2, 'node.completed', { nodeId: 'a', outputs: {} }, 'a'),
  runEventDoc(runId, 3, 'node.started', { nodeId: 'b', typeId: 'core.noop' }, 'b'),
  runEventDoc(runId, 4, 'node.completed', { nodeId: 'b', outputs: poisoned ? { poison: true } : {} }, 'b'),
  runEventDoc(runId, 5, 'node.started', { nodeId: 'c', typeId: 'core.noop' }, 'c'),
  runEventDoc(runId, 6, 'node.completed', { nodeId: 'c', outputs: {} }, 'c'),
  runEventDoc(runId, 7, 'run.completed', { outputs: {} }),
];
