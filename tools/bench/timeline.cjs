/**
 * One request's path across the processes of a distributed stack, to the tenth of a millisecond:
 * a `--require` preload records, in every app, each Postgres statement, each Kafka request and each
 * HTTP request it served (start, end, what); the report merges the processes' records on the
 * machine's one clock and prints every record that overlaps one chosen request.
 *   NODE_OPTIONS="--require $PWD/tools/bench/timeline.cjs" TIMELINE_DIR=/tmp/timeline npm run stack:up
 *   … a warm-up …; kill -USR2 <every app pid>; rm /tmp/timeline/*.json   # drops the warm-up
 *   … sequential load (e.g. CONC=1 npm run bench:cycle) …
 *   kill -USR2 <every app pid>      # writes $TIMELINE_DIR/<app>-<pid>.json
 *   node tools/bench/timeline.cjs /tmp/timeline 'POST /v1/runs/:id/interrupts'   # the median one
 * The report's optional third argument picks the n-th matching request instead of the median one.
 */
const fs = require('node:fs');
const path = require('node:path');

if (require.main === module) {
  const [dir, pattern = 'POST', pick] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node tools/bench/timeline.cjs TIMELINE_DIR [HTTP_PATTERN] [INDEX]');
    process.exit(2);
  }
  const records = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    .sort((a, b) => a[0] - b[0]);
  const roots = records.filter((r) => r[3] === 'http' && r[4].includes(pattern));
  if (roots.length === 0) {
    console.error(`no HTTP request matching ${pattern}`);
    process.exit(1);
  }
  const byDuration = [...roots].sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
  const root = pick !== undefined ? roots[Number(pick)] : byDuration[byDuration.length >> 1];
  console.log(
    `${roots.length} requests matching ${pattern}; showing one of ${(root[1] - root[0]).toFixed(2)} ms (ms from its start)`,
  );
  console.log('  start     end   took  process     kind   what');
  for (const [start, end, proc, kind, what] of records) {
    if (end < root[0] || start > root[1]) continue;
    const at = (t) => (t - root[0]).toFixed(2).padStart(7);
    console.log(
      `${at(start)} ${at(end)} ${(end - start).toFixed(2).padStart(6)}  ${proc.padEnd(10)}  ${kind.padEnd(5)}  ${what}`,
    );
  }
} else {
  const { performance } = require('node:perf_hooks');
  /** [start ms, end ms, process, kind, what], on the wall clock with sub-millisecond precision. */
  const records = [];
  const proc = (process.env.INSTANCE_ID ?? String(process.pid)).split('-')[0];
  const now = () => performance.timeOrigin + performance.now();
  const note = (start, kind, what) => records.push([start, now(), proc, kind, what]);
  require('./request-hooks.cjs').hookRequests({
    kafka(api) {
      const start = now();
      return () => note(start, 'kafka', api);
    },
    pg(sql) {
      const start = now();
      return () => note(start, 'pg', sql.replace(/\s+/g, ' ').slice(0, 60));
    },
  });

  const http = require('node:http');
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (type, req, res) {
    if (type === 'request') {
      const start = now();
      const what = `${req.method} ${req.url.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id').slice(0, 60)}`;
      res.once('finish', () => note(start, 'http', what));
    }
    return emit.apply(this, arguments);
  };

  process.on('SIGUSR2', () => {
    const dir = process.env.TIMELINE_DIR ?? '/tmp/openwop-timeline';
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${proc}-${process.pid}.json`), JSON.stringify(records));
    records.length = 0;
  });
}
