import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { setDecisionCheckpoint, type DecisionCheckpoint } from '@openwop/engine-domain';

/**
 * Longest stretch of synchronous decision work (node visits of one run) before the engine lets the
 * event loop turn. Every tenant's requests, `/readyz` and the bus share that loop with it.
 */
export const DECISION_SLICE_MS = 4;

/**
 * A checkpoint that asks for one macrotask turn (`setImmediate`) once `sliceMs` of work has run
 * since the last turn, else lets the decision go on at once. Shared by every decision in the
 * process, so concurrent decisions share one budget.
 */
export function timeSlicedCheckpoint(
  sliceMs = DECISION_SLICE_MS,
  now: () => number = () => performance.now(),
): DecisionCheckpoint {
  let sliceStart = now();
  return () => {
    if (now() - sliceStart < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        sliceStart = now();
        resolve();
      }),
    );
  };
}

/**
 * Installs the engine's decision checkpoint while the engine runs: a wide run (thousands of node
 * visits) is decided in slices of {@link DECISION_SLICE_MS}, the same events as in one piece.
 */
@Injectable()
export class DecisionPace implements OnModuleInit, OnModuleDestroy {
  onModuleInit(): void {
    setDecisionCheckpoint(timeSlicedCheckpoint());
  }

  onModuleDestroy(): void {
    setDecisionCheckpoint(undefined);
  }
}
