import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedHistory, RunStep } from './history';
import { HistoryDivergence } from './divergence';
import { replayHistory } from './replay';

const RECORDED = join(__dirname, '..', 'recorded');
const files = readdirSync(RECORDED)
  .filter((f) => f.endsWith('.json'))
  .sort();
const load = (file: string): RecordedHistory =>
  JSON.parse(readFileSync(join(RECORDED, file), 'utf8')) as RecordedHistory;

describe("recorded histories replay with today's code (ADR 0031)", () => {
  it('every file holds the history of the scenario it is named after (<scenario>.json, or <scenario>.<commit>.json kept from an older release)', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file.split('.')[0]).toBe(load(file).scenario);
  });

  it.each(files)('%s: same decisions, same events, same stored states, step by step', async (file) => {
    await expect(replayHistory(load(file))).resolves.toBeUndefined();
  });
});

describe('a tampered history fails with a determinism error naming the scenario, the step and the first difference', () => {
  const runSteps = (h: RecordedHistory): RunStep[] => h.steps.filter((s): s is RunStep => s.stream === 'run');

  it('one recorded event changed', async () => {
    const h = load('approval.json');
    const resume = runSteps(h).at(-1)! as { decision: { events: { type: string }[] } };
    resume.decision.events[1]!.type = 'node.completed';
    const replay = replayHistory(h);
    await expect(replay).rejects.toThrow(HistoryDivergence);
    await expect(replayHistory(h)).rejects.toThrow(
      'determinism error: history "approval" diverged at step 3 (run run-approval, ResumeRun): the decision differs at /events/1/type: recorded "node.completed", replayed ',
    );
  });

  it('two recorded events swapped', async () => {
    const h = load('quorum.json');
    const start = runSteps(h)[0]! as { decision: { events: unknown[] } };
    const events = start.decision.events;
    [events[0], events[1]] = [events[1], events[0]];
    const error = (await replayHistory(h).catch((e: unknown) => e)) as HistoryDivergence;
    expect(error).toBeInstanceOf(HistoryDivergence);
    expect(error.scenario).toBe('quorum');
    expect(error.step).toBe(0);
    expect(error.difference.path).toBe('/events/0/eventId');
    expect(error.message).toMatch(
      /^determinism error: history "quorum" diverged at step 0 \(run run-quorum, StartRun\): the decision differs at \/events\/0\/eventId: recorded "run-quorum:1", replayed "run-quorum:0"$/,
    );
  });

  it('a stored state changed (what the next release would read)', async () => {
    const h = load('cancel.json');
    const open = h.steps[1]! as { state: { interrupt: { nodeId: string } } };
    open.state.interrupt.nodeId = 'elsewhere';
    await expect(replayHistory(h)).rejects.toThrow(
      'determinism error: history "cancel" diverged at step 1 (interrupt run-cancel:gate:0, OpenInterrupt): the stored state differs at /interrupt/nodeId: recorded "elsewhere", replayed "gate"',
    );
  });

  it('a stored state stamped with another version', async () => {
    const h = load('approval.json');
    (h.steps[0]!.state as { schemaVersion: number }).schemaVersion = 2;
    await expect(replayHistory(h)).rejects.toThrow(
      'determinism error: history "approval" diverged at step 0 (run run-approval, StartRun): the stored state differs at /schemaVersion: recorded 2, replayed 1',
    );
  });
});
