/**
 * A preload that counts, per process, the Postgres statements (by text) and the Kafka requests (by
 * API) it sends, to read round trips per HITL cycle:
 *   NODE_OPTIONS="--require $PWD/tools/bench/count-requests.cjs" COUNT_DIR=/tmp/counts npm run stack:up
 *   kill -USR2 <every app pid>        # resets the counters (after a warm-up)
 *   … N cycles of load …
 *   kill -USR2 <every app pid>        # writes $COUNT_DIR/<INSTANCE_ID>.json, then resets
 *   node tools/bench/count-requests.cjs CYCLES $COUNT_DIR   # prints per-cycle figures
 * Each SIGUSR2 writes what was counted since the previous one (the first write can be discarded).
 */
const fs = require('node:fs');
const path = require('node:path');

if (require.main === module) {
  const [cycles, dir] = process.argv.slice(2);
  const n = Number(cycles);
  if (!n || !dir) {
    console.error('usage: node tools/bench/count-requests.cjs CYCLES COUNT_DIR');
    process.exit(2);
  }
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const c = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const kafka = Object.entries(c.kafka)
      .map(([api, k]) => `${api}=${(k / n).toFixed(2)}`)
      .join(' ');
    console.log(
      `${file.replace(/\.json$/, '').padEnd(28)} pg ${(c.pg / n).toFixed(1).padStart(5)}/cycle, commits ${((c.commits ?? 0) / n).toFixed(2)} | kafka ${kafka}`,
    );
    const top = Object.entries(c.pgText)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8);
    for (const [text, k] of top) console.log(`    ${(k / n).toFixed(2).padStart(6)}  ${text}`);
  }
} else {
  const counts = { kafka: {}, pg: 0, commits: 0, pgText: {} };
  // A commit is a COMMIT of an explicit transaction, or a statement that writes outside one (an
  // autocommitted INSERT, UPDATE, DELETE or NOTIFY, a data-modifying CTE included).
  const inTransaction = new WeakSet();
  const writes = (sql) =>
    /\b(INSERT|UPDATE|DELETE|MERGE|NOTIFY|pg_notify)\b/i.test(
      sql.replace(/\bFOR\s+(NO\s+KEY\s+)?UPDATE\b/gi, ''),
    );
  require('./request-hooks.cjs').hookRequests({
    kafka(api) {
      counts.kafka[api] = (counts.kafka[api] ?? 0) + 1;
    },
    pg(sql, client) {
      counts.pg += 1;
      if (/^\s*(BEGIN|START\s+TRANSACTION)\b/i.test(sql)) inTransaction.add(client);
      else if (/^\s*(COMMIT|END)\b/i.test(sql)) {
        counts.commits += 1;
        inTransaction.delete(client);
      } else if (/^\s*ROLLBACK\s*;?\s*$/i.test(sql)) inTransaction.delete(client);
      else if (!inTransaction.has(client) && writes(sql)) counts.commits += 1;
      const text = sql.replace(/\s+/g, ' ').slice(0, 70);
      counts.pgText[text] = (counts.pgText[text] ?? 0) + 1;
    },
  });
  process.on('SIGUSR2', () => {
    const dir = process.env.COUNT_DIR ?? '/tmp/openwop-counts';
    fs.mkdirSync(dir, { recursive: true });
    // Written whole, then renamed: a reader waiting for the file never sees half of it.
    const file = path.join(dir, `${process.env.INSTANCE_ID ?? process.pid}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    fs.renameSync(`${file}.tmp`, file);
    counts.kafka = {};
    counts.pg = 0;
    counts.commits = 0;
    counts.pgText = {};
  });
}
