// Records the histories of ADR 0031 from the real host (the engine and the interrupt service in one
// process), and checks that the committed ones are what the host records today.
//
//   RECORD_HISTORIES=1 npx jest -c jest.int.config.js apps/embedded/src/histories   (writes them)
//
// The domain modules are the real ones; their deciders also tell the recorder what they decided.
jest.mock('@openwop/engine-domain', (): object =>
  jest
    .requireActual<typeof Tap>('./decision-tap.spec')
    .tappedEngineDomain(jest.requireActual<object>('@openwop/engine-domain')),
);
jest.mock('@openwop/interrupt-domain', (): object =>
  jest
    .requireActual<typeof Tap>('./decision-tap.spec')
    .tappedInterruptDomain(jest.requireActual<object>('@openwop/interrupt-domain')),
);
jest.mock('@openwop/conversation-domain', (): object =>
  jest
    .requireActual<typeof Tap>('./decision-tap.spec')
    .tappedConversationDomain(jest.requireActual<object>('@openwop/conversation-domain')),
);

import type * as Tap from './decision-tap.spec';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asJson, firstDifference, replayHistory, type RecordedHistory } from '@openwop/histories';
import { HostRecorder } from './host-recorder.spec';
import { SCENARIOS } from './scenarios.spec';

const RECORDED = join(__dirname, '..', '..', '..', '..', 'libs', 'histories', 'recorded');
const writing = process.env.RECORD_HISTORIES === '1';

let host: HostRecorder;

beforeAll(async () => {
  // Only the clock is faked: the host's timers, I/O and the recorder's waits run in real time.
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  host = await HostRecorder.start((ms) => jest.setSystemTime(ms));
}, 120_000);

afterAll(async () => {
  await host?.close();
  jest.useRealTimers();
}, 60_000);

describe.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', (name, scenario) => {
  it('the real host records the committed history, and it replays', async () => {
    const fresh = await host.record(name, scenario.description, scenario.drive);
    await expect(replayHistory(fresh)).resolves.toBeUndefined();
    const file = join(RECORDED, `${name}.json`);
    if (writing) writeFileSync(file, `${JSON.stringify(fresh, null, 1)}\n`);
    const committed = JSON.parse(readFileSync(file, 'utf8')) as RecordedHistory;
    const d = firstDifference(asJson(committed), asJson(fresh));
    // A difference is the host's drift from what it recorded before: see ADR 0031 before re-recording.
    expect(
      d &&
        `${name}: the host records ${JSON.stringify(d.replayed)} at ${d.path}, the file has ${JSON.stringify(d.recorded)}`,
    ).toBeUndefined();
  }, 120_000);
});

it('every scenario has its recorded history, and every recorded history (older ones included) a scenario', () => {
  const files = readdirSync(RECORDED).filter((f) => f.endsWith('.json'));
  const names = SCENARIOS.map((s) => s.name);
  for (const name of names) expect(files).toContain(`${name}.json`);
  for (const file of files) expect(names).toContain(file.split('.')[0]);
});
