#!/usr/bin/env node
/**
 * Where a request's time goes, across processes: an OTLP/JSON trace sink (the SDK's `otlp`
 * exporter with protocol http/json posts to it) that, on SIGINT/SIGTERM or after IDLE_MS without spans, groups the
 * spans by trace, keeps the traces whose root span name matches ROOT (a regular expression), and
 * prints for every span name seen in them the median start offset from the root's start, the
 * median duration and how many traces had it. Every process on one machine shares one clock.
 *
 *   node tools/bench/trace-breakdown.mjs &            # listens on TRACE_PORT (default 4328)
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:4328/v1/traces \
 *     OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json OTEL_BSP_SCHEDULE_DELAY=200 bash tools/stack/stack.sh up
 *   … load …; kill -INT %1
 * Env: ROOT (default "POST"), TRACE_PORT, IDLE_MS (default 0: only on a signal).
 */
import { createServer } from 'node:http';

const port = Number(process.env.TRACE_PORT ?? 4328);
const root = new RegExp(process.env.ROOT ?? 'POST');
const idleMs = Number(process.env.IDLE_MS ?? 0);
/** @type {Map<string, any[]>} */
const traces = new Map();
let idle;

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      for (const span of fromOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8')))) {
        const list = traces.get(span.traceId) ?? [];
        list.push(span);
        traces.set(span.traceId, list);
      }
    } catch (e) {
      console.error('unreadable span batch:', e.message);
    }
    res.writeHead(202).end();
    if (idleMs > 0) {
      clearTimeout(idle);
      idle = setTimeout(report, idleMs);
    }
  });
});
server.listen(port, '127.0.0.1', () => console.error(`OTLP/JSON trace sink on 127.0.0.1:${port}`));

/** OTLP/JSON (`/v1/traces`) spans as {traceId, parentId, name, service, timestamp µs, duration µs}. */
function* fromOtlpJson(body) {
  for (const rs of body.resourceSpans ?? []) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '?';
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const start = Number(BigInt(s.startTimeUnixNano) / 1000n);
        const end = Number(BigInt(s.endTimeUnixNano) / 1000n);
        yield {
          traceId: s.traceId,
          parentId: s.parentSpanId || undefined,
          name: s.name,
          service,
          timestamp: start,
          duration: end - start,
        };
      }
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};

function label(span) {
  return `${span.service} ${span.name}`;
}

/** One table per root span name that matches ROOT. */
function report() {
  /** @type {Map<string, any[][]>} */
  const byRoot = new Map();
  for (const spans of traces.values()) {
    const top = spans.find((s) => !s.parentId);
    if (!top || !root.test(top.name)) continue;
    const list = byRoot.get(label(top)) ?? [];
    list.push(spans);
    byRoot.set(label(top), list);
  }
  for (const [name, group] of byRoot) table(name, group);
  server.close();
  process.exit(0);
}

function table(name, group) {
  /** @type {Map<string, {offsets: number[], durations: number[]}>} */
  const rows = new Map();
  const totals = [];
  for (const spans of group) {
    const top = spans.find((s) => !s.parentId);
    totals.push(top.duration / 1000);
    // One row per (name, occurrence): a name seen twice in a trace is two hops.
    const seen = new Map();
    for (const s of [...spans].sort((a, b) => a.timestamp - b.timestamp)) {
      const n = (seen.get(label(s)) ?? 0) + 1;
      seen.set(label(s), n);
      const key = n === 1 ? label(s) : `${label(s)} #${n}`;
      const row = rows.get(key) ?? { offsets: [], durations: [] };
      row.offsets.push((s.timestamp - top.timestamp) / 1000);
      row.durations.push((s.duration ?? 0) / 1000);
      rows.set(key, row);
    }
  }
  console.log(`\n${name}: ${group.length} traces, root duration p50 ${median(totals).toFixed(2)} ms`);
  console.log('start+ms   dur ms   seen  span');
  const ordered = [...rows.entries()].sort((a, b) => median(a[1].offsets) - median(b[1].offsets));
  for (const [key, row] of ordered) {
    console.log(
      `${median(row.offsets).toFixed(2).padStart(8)} ${median(row.durations).toFixed(2).padStart(8)} ${String(row.offsets.length).padStart(6)}  ${key}`,
    );
  }
}

process.on('SIGINT', report);
process.on('SIGTERM', report);
