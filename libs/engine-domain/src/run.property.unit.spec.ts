import fc from 'fast-check';
import type { RunEventDoc } from '@openwop/contracts';
import { decideRun, RunTerminal } from './run.decider';
import type { RunState } from './run.state';
import { context, record, resume, start, workflow } from './test-kit.spec';

type Step =
  | {
      readonly kind: 'resume';
      readonly target: 'pending' | 'previous' | 'bogus';
      readonly value: 'accept' | 'reject' | 'timeout';
    }
  | { readonly kind: 'cancel' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('resume' as const),
      target: fc.constantFrom('pending' as const, 'previous' as const, 'bogus' as const),
      value: fc.constantFrom('accept' as const, 'reject' as const, 'timeout' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancel' as const }) },
);

/** A chain of gates and no-ops; rejections route to a handler so some runs continue past a failed gate. */
const graph = fc
  .array(fc.constantFrom('core.approvalGate', 'core.custom', 'core.noop', 'core.clarificationGate'), {
    minLength: 1,
    maxLength: 6,
  })
  .map((typeIds) =>
    workflow(
      typeIds.map((typeId, i) => ({
        id: `n${i}`,
        typeId,
        config: { customKind: 'k', questions: [{ id: 'q', question: 'q?' }] },
      })),
      typeIds
        .slice(1)
        .map(
          (_, i) =>
            [`n${i}`, `n${i + 1}`, i % 2 ? 'none_failed' : 'all_complete'] as [
              string,
              string,
              'none_failed' | 'all_complete',
            ],
        ),
    ),
  );

describe('run decider properties', () => {
  it('whatever commands arrive, sequences are gapless from 0, ids unique, and each interrupt.requested is resolved at most once, after its request', async () => {
    await fc.assert(
      fc.asyncProperty(graph, fc.array(step, { maxLength: 12 }), async (wf, steps) => {
        const log: RunEventDoc[] = [];
        let decided = await start(wf);
        log.push(...decided.events);
        let state: RunState = decided.state;
        let previous: string | undefined;
        for (const [i, s] of steps.entries()) {
          if (s.kind === 'cancel') {
            try {
              decided = await decideRun({ type: 'CancelRun', runId: 'r1', context: context(`x${i}`) }, state);
            } catch (e) {
              expect(e).toBeInstanceOf(RunTerminal);
              continue;
            }
          } else {
            const pending = record(state).pending?.interruptId;
            const interruptId =
              s.target === 'pending' ? pending : s.target === 'previous' ? previous : 'r1:n0:99';
            previous = pending ?? previous;
            decided = await resume(
              state,
              s.value === 'timeout' ? undefined : { action: s.value, answers: { q: 'a' } },
              {
                interruptId: interruptId ?? 'none',
                outcome: s.value === 'timeout' ? 'timeout' : 'resolved',
                commandId: `x${i}`,
              },
            );
          }
          log.push(...decided.events);
          state = decided.state;
          const open = record(state).pending?.interruptId;
          if (open)
            expect(
              log.some(
                (e) =>
                  e.type === 'interrupt.resolved' &&
                  (e.payload as { interruptId: string }).interruptId === open,
              ),
            ).toBe(false);
        }
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i));
        expect(new Set(log.map((e) => e.eventId)).size).toBe(log.length);
        const requestedAt = new Map<string, number>();
        const resolved = new Set<string>();
        for (const e of log) {
          const id = (e.payload as { interruptId?: string }).interruptId!;
          if (e.type === 'interrupt.requested') {
            expect(requestedAt.has(id)).toBe(false);
            requestedAt.set(id, e.sequence);
          }
          if (e.type === 'interrupt.resolved') {
            expect(requestedAt.has(id)).toBe(true);
            expect(resolved.has(id)).toBe(false);
            resolved.add(id);
          }
        }
        const terminal = log.filter(
          (e) => e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.cancelled',
        );
        expect(terminal.length).toBeLessThanOrEqual(1);
        if (terminal.length) expect(log[log.length - 1]).toBe(terminal[0]);
      }),
      { numRuns: 200 },
    );
  });
});
