import type { DataSource } from 'typeorm';
import { INTERRUPT_KINDS } from '@openwop/contracts';
import type { PendingInterruptSample } from '@openwop/observability';

/**
 * The pending-interrupt gauges' reading, from the projection behind `GET /v1/interrupts`: per kind,
 * how many wait and how long the oldest has waited (0 for kinds with none). One aggregate per scrape.
 */
export async function samplePendingInterrupts(ds: DataSource): Promise<PendingInterruptSample[]> {
  const rows = await ds.query<{ kind: string; count: string; oldest: string | null }[]>(
    `SELECT kind, count(*)::text AS count, extract(epoch FROM now() - min(requested_at))::text AS oldest
       FROM pending_interrupts GROUP BY kind`,
  );
  const byKind = new Map<string, PendingInterruptSample>(
    INTERRUPT_KINDS.map((kind) => [kind, { kind, count: 0, oldestAgeSeconds: 0 }]),
  );
  for (const r of rows) {
    byKind.set(r.kind, {
      kind: r.kind,
      count: Number(r.count),
      oldestAgeSeconds: Math.max(0, Number(r.oldest ?? 0)),
    });
  }
  return [...byKind.values()];
}
