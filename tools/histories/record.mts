/**
 * `node tools/histories/record.mts [scenario…]` — records the histories of today's deciders
 * (libs/histories/src/scenarios.ts) into libs/histories/recorded/<scenario>.json, all of them or
 * those named. Build first (`npx tsc -b tsconfig.build.json`): this runs the built library.
 *
 * A recorded history is what a release decided; commit it, and never re-record one to make the
 * replay pass (ADR 0031). Record a new scenario, or a new file next to the old one, when a shape changes.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Scenario } from '../../libs/histories/src/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { SCENARIOS } = require(join(root, 'libs/histories/dist/index.js')) as {
  SCENARIOS: readonly Scenario[];
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
const out = join(root, 'libs/histories/recorded');
mkdirSync(out, { recursive: true });
for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  const history = await scenario.record();
  const file = join(out, `${scenario.name}.json`);
  writeFileSync(file, `${JSON.stringify(history, null, 1)}\n`);
  console.log(`${scenario.name}: ${history.steps.length} steps → ${file}`);
}
