import 'reflect-metadata';
import { Client } from 'pg';
import { adminUrl, openDatabase } from '@openwop/platform-db';
import { readHostConfig } from '@openwop/platform-nest';
import { compareProjections, rebuildProjections, repairBrokenRuns } from './rebuild/rebuild-projections';

/**
 * `npm run projector:rebuild [-- --target <database url>] [--compare]`
 * Drops and recreates the target database (default: the live one's name + `_rebuild`), migrates it,
 * replays the run event topic from offset 0 into it, and with --compare checks it equals the live
 * projection tables (exit 2 when they differ).
 *
 * `npm run projector:rebuild -- --repair`
 * In the live database, replays the events of the runs whose projection is marked broken
 * (`projectionError`) and clears the mark; exit 2 when a run is still broken.
 */
async function main(): Promise<void> {
  const config = readHostConfig('distributed');
  const liveUrl = config.databaseUrl!;
  const args = process.argv.slice(2);
  if (args.includes('--repair')) {
    const live = await openDatabase({ url: liveUrl, applicationName: 'openwop-repair' });
    const r = await repairBrokenRuns([...config.kafkaBrokers], live, config.namespace);
    console.log(
      `repaired ${r.repaired.length} run(s) (${r.events} events read, ${r.applied} applied in ${r.seconds.toFixed(2)} s)` +
        (r.stillBroken.length ? `; still broken: ${r.stillBroken.join(', ')}` : ''),
    );
    await live.destroy();
    process.exit(r.stillBroken.length ? 2 : 0);
  }
  const targetArg = args.indexOf('--target');
  const target = new URL(targetArg >= 0 ? args[targetArg + 1]! : liveUrl);
  if (targetArg < 0) target.pathname = `${new URL(liveUrl).pathname}_rebuild`;
  if (target.toString() === new URL(liveUrl).toString())
    throw new Error('refusing to rebuild into the live database');
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new Client({ connectionString: adminUrl(target.toString()) });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const ds = await openDatabase({ url: target.toString(), applicationName: 'openwop-rebuild' });
  const result = await rebuildProjections([...config.kafkaBrokers], ds, config.namespace);
  const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
  console.log(
    `rebuilt ${name}: ${result.events} events read, ${result.applied} applied in ${result.seconds.toFixed(2)} s (${rate} events/s)` +
      (result.broken ? `; ${result.broken} run(s) marked broken, ${result.held ?? 0} event(s) held` : ''),
  );
  let code = 0;
  if (args.includes('--compare')) {
    const live = await openDatabase({ url: liveUrl, applicationName: 'openwop-rebuild-compare' });
    const differing = await compareProjections(live, ds);
    console.log(
      differing.length === 0 ? 'projections identical to the live tables' : `differ: ${differing.join(', ')}`,
    );
    if (differing.length) code = 2;
    await live.destroy();
  }
  await ds.destroy();
  // Last line: the rate, and seconds by phase (they overlap: the log is read while batches are written).
  const phases = Object.entries(result.phases ?? {})
    .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`)
    .join(' ');
  console.log(
    `rebuild: ${result.events} events in ${result.seconds.toFixed(2)} s = ${rate} events/s; ${phases}`,
  );
  process.exit(code);
}

main().catch((e: unknown) => {
  console.error('rebuild failed:', e instanceof Error ? e.message : e);
  process.exit(1);
});
