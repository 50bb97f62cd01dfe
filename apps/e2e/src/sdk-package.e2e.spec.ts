import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { OpenWopClient } from '@openwop/sdk';
import {
  createTestDatabase,
  REPO_ROOT,
  startEmbeddedHost,
  TEST_KEYS,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';

// The SDK as a user gets it: `npm pack` of libs/sdk, then the README's own setup commands run as
// they stand in an empty folder outside the repository (a new ES module project, the tarball, the
// newest `typescript` and `@types/node` from the registry, `tsc --init --types node`), then the
// README's example, a typed script and a strict caller, type-checked with that project's compiler
// and `tsc --init`'s strict defaults (exactOptionalPropertyTypes on), again with library checks on
// and with the repo's compiler, and run with Node against an embedded host. A file missing from the
// tarball fails the install, the type check or the run; a type that became `any` fails the
// `@ts-expect-error` lines; an option that stops accepting `undefined` fails the strict caller.

const exec = promisify(execFile);

/** The environment of the npm and node children: this Node first on PATH, no npm_* of a parent npm run. */
const childEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  return env;
};

const sh = async (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = childEnv()) => {
  try {
    return await exec(file, args, { cwd, env, maxBuffer: 32 * 1024 * 1024, timeout: 240_000 });
  } catch (error) {
    const e = error as { message: string; stdout?: string; stderr?: string };
    throw new Error(
      `${file} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
};

const TSC = resolve(REPO_ROOT, 'node_modules/typescript/bin/tsc');

interface PackResult {
  readonly filename: string;
  readonly files: { readonly path: string }[];
}

/** `npm pack` of a folder into `dest`, with npm's own account of what went in. */
async function pack(folder: string, dest: string): Promise<PackResult> {
  const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', dest], folder);
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('['))) as PackResult[];
  return result!;
}

/** The ```lang block after the README's marker comment `marker`, as it stands. */
function readmeBlock(marker: string, lang: 'ts' | 'sh'): string {
  const readme = readFileSync(resolve(REPO_ROOT, 'libs/sdk/README.md'), 'utf8');
  const at = readme.indexOf(marker);
  const start = readme.indexOf('```' + lang + '\n', at);
  const end = readme.indexOf('\n```', start + 4 + lang.length);
  if (at < 0 || start < 0 || end < 0)
    throw new Error(`libs/sdk/README.md has no \`\`\`${lang} block after "${marker}"`);
  return readme.slice(start + 4 + lang.length, end + 1);
}

/** The README's example. */
const readmeExample = (): string =>
  readmeBlock('sdk-package.e2e.spec.ts type-checks and runs this block', 'ts');

/** The README's setup commands (a new project with the tarball, TypeScript and `tsc --init`). */
const readmeSetup = (): string => readmeBlock('sdk-package.e2e.spec.ts runs these commands', 'sh');

/** The folder the README's setup commands make and enter. */
const PROJECT = 'wop-example';

/** The typed script run in the consumer folder; prints one JSON line of what it saw. */
const CHECK_SCRIPT = `
import {
  OpenWopApiError,
  OpenWopClient,
  OpenWopRunEndedError,
  RUN_EVENT_TYPES,
  type PendingInterruptOf,
  type RunEvent,
  type RunStatus,
  type RunStreamEvent,
} from '@openwop/sdk';

const [baseUrl, apiKey] = process.argv.slice(2);
if (!baseUrl || !apiKey) throw new Error('usage: node check.js <baseUrl> <apiKey>');
const client = new OpenWopClient({ baseUrl, apiKey });
const { runId } = await client.createRun({ workflowId: 'conformance-approval' });

const types: RunEvent['type'][] = [];
let requestedKind: string | undefined;
const following = (async () => {
  for await (const frame of client.streamEvents(runId, { streamMode: 'debug' })) {
    switch (frame.type) {
      case 'unknown':
      case 'state.snapshot':
      case 'ai.message.chunk':
        throw new Error(\`a \${frame.type} frame in a debug stream: \${JSON.stringify(frame.data)}\`);
      case 'interrupt.requested':
        requestedKind = frame.data.payload.kind;
        break;
      default:
        break;
    }
    types.push(frame.data.type);
  }
})();

const gate: PendingInterruptOf<'approval'> = await client.waitForInterrupt(runId, {
  kind: 'approval',
  timeoutMs: 30_000,
});
const actions: Array<'accept' | 'reject' | 'refine' | 'edit-accept' | 'ask'> = gate.data.actions;
const title: string = gate.data.title;
const resolved = await client.resolveInterrupt(runId, gate.nodeId, { action: 'accept' });
const done = await client.waitForStatus(runId, ['completed'], { timeoutMs: 30_000 });
await following;

let ended: string | undefined;
try {
  await client.waitForInterrupt(runId, { timeoutMs: 10_000 });
} catch (error) {
  if (!(error instanceof OpenWopRunEndedError)) throw error;
  ended = error.status;
}
let refusal: string | undefined;
try {
  await client.getRun('00000000-0000-4000-8000-000000000000');
} catch (error) {
  if (!(error instanceof OpenWopApiError)) throw error;
  refusal = \`\${error.status} \${error.code}\`;
}

console.log(JSON.stringify({
  runId, nodeId: gate.nodeId, kind: gate.kind, title, actions, resolved: resolved.status,
  status: done.status, types, requestedKind, ended, refusal, knownTypes: RUN_EVENT_TYPES.length,
}));

// Compile-time only: were any of these types \`any\`, the unused @ts-expect-error would fail tsc.
export function typeChecks(frame: RunStreamEvent, approval: PendingInterruptOf<'approval'>): void {
  // @ts-expect-error a run status is one of run-snapshot.schema.json's
  const status: RunStatus = 'done';
  // @ts-expect-error an approval interrupt's kind is 'approval'
  const kind: 'clarification' = approval.kind;
  if (frame.type === 'run.failed') {
    const code: string = frame.data.payload.error.code;
    // @ts-expect-error a field the schema does not name is unknown, not a string
    const other: string = frame.data.payload.notAField;
    void [code, other];
  }
  // @ts-expect-error frame.data is narrowed only by frame.type
  const payloadKind: string = frame.data.payload.kind;
  void [status, kind, payloadKind];
}
`;

/**
 * Compile-time only: a caller in a strict project (exactOptionalPropertyTypes) passes `T | undefined`
 * for every optional option of every method. An option typed `?: T` instead of `?: T | undefined`
 * fails tsc here with TS2379, as the README's example did with `apiKey: process.env.OPENWOP_API_KEY`.
 */
const STRICT_CALLER = `
import { OpenWopClient, streamRunEvents, type StreamTransport } from '@openwop/sdk';

export async function strictCaller(
  s: string | undefined,
  n: number | undefined,
  signal: AbortSignal | undefined,
  record: Record<string, unknown> | undefined,
  transport: StreamTransport,
): Promise<void> {
  const client = new OpenWopClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: s, fetch: n ? fetch : undefined });
  const runId = 'r';
  await client.createRun(
    { workflowId: 'w', inputs: record, metadata: record, tags: s ? [s] : undefined, callbackUrl: s, configurable: record },
    { idempotencyKey: s },
  );
  await client.listRuns({ status: s, workflowId: s, limit: n, cursor: s });
  await client.forkRun(runId, { mode: 'replay', fromSeq: n, runOptionsOverlay: record });
  await client.listEvents(runId, { after: n, streamMode: s });
  await client.pollEvents(runId, { after: n, timeoutMs: n, streamMode: s, signal });
  const streamOptions = { after: n, streamMode: s, signal, maxReconnects: n, reconnectDelayMs: n, bufferMs: n };
  for await (const frame of client.streamEvents(runId, streamOptions)) void frame;
  for await (const frame of streamRunEvents(transport, streamOptions)) void frame;
  await client.waitForStatus(runId, 'completed', { timeoutMs: n, signal });
  const kind: 'approval' | undefined = s ? 'approval' : undefined;
  await client.waitForInterrupt(runId, { nodeId: s, kind, timeoutMs: n, signal });
  await client.resolveApproval(runId, 'gate', { decision: 'approved', feedback: s });
  await client.listInterrupts({ kind: s, runId: s, minAgeMs: n, maxAgeMs: n, limit: n, cursor: s });
  await client.sendTurn(runId, 'chat', 'hello', { messageId: s, from: s });
  await client.closeConversation(runId, 'chat', { outcome: record });
  await client.getConversation(runId, 'c', { after: n, limit: n });
}
`;

describe('@openwop/sdk as a packed tarball in a new strict TypeScript project, set up as its README says', () => {
  let db: TestDatabase;
  let host: RunningHost;
  let work: string;
  let consumer: string;
  let sdk: PackResult;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'openwop-sdk-package-'));
    const packs = join(work, 'packs');
    mkdirSync(packs);
    // The tarball holds what the sources build to now.
    await sh(process.execPath, [TSC, '-b', 'libs/sdk/tsconfig.lib.json'], REPO_ROOT);
    sdk = await pack(resolve(REPO_ROOT, 'libs/sdk'), packs);
    // The README's commands, with this tarball where they name the one `npm pack` writes to /tmp.
    const setup = readmeSetup();
    const readmeTarball = `/tmp/${sdk.filename}`;
    if (!setup.includes(readmeTarball))
      throw new Error(`the README's setup commands do not install ${readmeTarball}`);
    await sh(
      'bash',
      ['-euo', 'pipefail', '-c', setup.split(readmeTarball).join(join(packs, sdk.filename))],
      work,
    );
    consumer = join(work, PROJECT);
    if (!existsSync(join(consumer, 'tsconfig.json')))
      throw new Error(`the README's setup made no ${PROJECT}/tsconfig.json`);
    db = await createTestDatabase('e2e_sdk_package');
    host = await startEmbeddedHost({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await host?.stop();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs the built package: its code, declarations, README and licence, no specs, no dependencies', () => {
    const files = sdk.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/client.js',
      'dist/client.d.ts',
      'dist/generated/run-events.js',
      'dist/generated/run-events.d.ts',
      'dist/run-event.stream.js',
    ])
      expect(files).toContain(needed);
    expect(files.filter((f) => /\.spec\.|tsbuildinfo/.test(f))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules/@openwop/sdk/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: '@openwop/sdk',
      license: 'Apache-2.0',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    });
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies ?? {}).toEqual({});
    // The consumer is outside the repository: nothing resolves through the repo's node_modules.
    expect(relative(REPO_ROOT, consumer).startsWith('..')).toBe(true);
  });

  it("sets up the project with the registry's newest TypeScript and tsc --init's strict defaults", async () => {
    const installed = JSON.parse(
      readFileSync(join(consumer, 'node_modules/typescript/package.json'), 'utf8'),
    ) as {
      version: string;
    };
    const { stdout: latest } = await sh('npm', ['view', 'typescript', 'dist-tags.latest'], consumer);
    expect(installed.version).toBe(latest.trim());
    const { stdout } = await sh('npx', ['--no-install', 'tsc', '--showConfig'], consumer);
    const { compilerOptions } = JSON.parse(stdout) as { compilerOptions: Record<string, unknown> };
    expect(compilerOptions).toMatchObject({
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      module: 'nodenext',
      types: ['node'],
    });
    const manifest = JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.type).toBe('module');
  });

  it('type-checks the README example, a typed script and a strict caller, runs the first two: approval found, resolved, run completed', async () => {
    writeFileSync(join(consumer, 'check.ts'), CHECK_SCRIPT);
    writeFileSync(join(consumer, 'example.ts'), readmeExample());
    writeFileSync(join(consumer, 'strict.ts'), STRICT_CALLER);
    // The project's own compiler and tsconfig.json, as the README says: `npx tsc`.
    await sh('npx', ['--no-install', 'tsc'], consumer);
    // The same with the SDK's declarations checked too, then with the repo's compiler (TypeScript 6).
    await sh('npx', ['--no-install', 'tsc', '--noEmit', '--skipLibCheck', 'false'], consumer);
    await sh(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit', '--skipLibCheck', 'false'], consumer);

    const baseUrl = host.gateways[0]!;
    const { stdout } = await sh(process.execPath, ['check.js', baseUrl, TEST_KEYS.t1], consumer);
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown> & {
      runId: string;
      types: string[];
    };
    expect(seen).toMatchObject({
      nodeId: 'gate',
      kind: 'approval',
      title: 'Conformance approval',
      actions: ['accept', 'reject'],
      resolved: 'resolved',
      status: 'completed',
      requestedKind: 'approval',
      ended: 'completed',
      refusal: '404 not_found',
    });
    // Every event of the run, once, in order, as the host's log has them.
    const client = new OpenWopClient({ baseUrl, apiKey: TEST_KEYS.t1 });
    expect(seen.types).toEqual((await client.listEvents(seen.runId)).map((e) => e.type));
    expect(seen.types.at(-1)).toBe('run.completed');

    const example = await sh(process.execPath, ['example.js'], consumer, {
      ...childEnv(),
      OPENWOP_URL: baseUrl,
      OPENWOP_API_KEY: TEST_KEYS.t1,
    });
    expect(example.stdout).toMatch(/^waiting on approval at gate$/m);
    expect(example.stdout).toMatch(/^approving "Conformance approval" \(accept, reject\)$/m);
    expect(example.stdout).toMatch(/^run \S+ completed$/m);
  });
});
