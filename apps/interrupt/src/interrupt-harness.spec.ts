// The harness of the interrupt service's int specs that run without an engine (not a test file
// itself: jest runs *.int.spec.ts): the real platform in embedded mode on a fresh Postgres database,
// `instances` interrupt service instances, and probe groups recording the engine's topic (and, when
// asked, the audit facts).
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AuditFact } from '@openwop/audit-chain';
import { Topics, type CommandEnvelope, type CommandReply, type OpenInterruptData } from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { InterruptModule } from './interrupt.module';

export const SYSTEM = { tenant: 't1', principal: 'system:engine' };

/** A command of `type` from `actor` (the engine by default), with a fresh id. */
export function envelope<T>(type: string, data: T, actor = SYSTEM): CommandEnvelope<string, T> {
  const id = randomUUID();
  return { id, type, occurredAt: new Date().toISOString(), correlationId: `corr-${id}`, actor, data };
}

/** The approval's artifact and actions (a fresh object each time). */
export const gateData = () => ({
  artifactId: 'a1',
  artifactType: 'doc',
  title: 'Ship it?',
  artifactData: {},
  actions: ['accept', 'reject'],
});

/** The approval gate `gate` of `runId` the specs open (`interrupt.open`'s data), with `over` applied. */
export function approvalData(runId: string, over: Partial<OpenInterruptData> = {}): OpenInterruptData {
  return {
    runId,
    nodeId: 'gate',
    interruptId: `${runId}:gate:0`,
    kind: 'approval',
    key: `${runId}:gate:0`,
    data: gateData(),
    requestedAt: new Date().toISOString(),
    timeoutMs: 600_000,
    ...over,
  };
}

export interface InterruptHarnessOptions {
  /** Prefix of the test database's name. */
  readonly database: string;
  /** Interrupt service instances over the one platform (default 1). */
  readonly instances?: number;
  /** Environment the instances read at start (`INTERRUPT_TIMER_MS`, …), restored by `close`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Also record the audit-fact topic in `facts` (default false). */
  readonly auditProbe?: boolean;
}

export interface InterruptHarness {
  readonly platform: Platform;
  readonly apps: readonly INestApplicationContext[];
  /** Every command sent to the engine's topic, in arrival order. */
  readonly toEngine: CommandEnvelope[];
  /** Every audit fact (with `auditProbe`), in arrival order. */
  readonly facts: AuditFact[];
  /** Sends `command` to the interrupt service, keyed by its run, and waits for the reply. */
  send<T = unknown>(command: CommandEnvelope, timeoutMs?: number): Promise<CommandReply<T>>;
  /** Closes the instances and the platform, drops the database and restores the environment. */
  close(): Promise<void>;
}

export async function startInterruptHarness(options: InterruptHarnessOptions): Promise<InterruptHarness> {
  const saved = Object.keys(options.env ?? {}).map((name) => [name, process.env[name]] as const);
  const apps: INestApplicationContext[] = [];
  const toEngine: CommandEnvelope[] = [];
  const facts: AuditFact[] = [];
  let db: TestDatabase | undefined;
  let platform: Platform | undefined;
  const close = async () => {
    for (const app of apps.splice(0)) await app.close();
    await platform?.close();
    await db?.drop();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  try {
    db = await createTestDatabase(options.database);
    Object.assign(process.env, options.env);
    platform = await startPlatform(
      readHostConfig('embedded', { OPENWOP_DATA_DIR: 'memory', DATABASE_URL: db.url, KAFKA_PARTITIONS: '2' }),
    );
    await platform.bus.subscribe({
      group: 'engine-probe',
      topics: [Topics.engineCommands],
      fromBeginning: true,
      handler: async (m: IncomingMessage) => {
        toEngine.push(m.value as CommandEnvelope);
      },
    });
    if (options.auditProbe) {
      await platform.bus.subscribe({
        group: 'audit-probe',
        topics: [Topics.auditFacts],
        fromBeginning: true,
        handler: async (m: IncomingMessage) => {
          facts.push(m.value as AuditFact);
        },
      });
    }
    for (let i = 0; i < (options.instances ?? 1); i++) {
      const app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), {
        logger: ['error'],
      });
      await app.init();
      apps.push(app);
    }
  } catch (error) {
    await close().catch(() => undefined); // the start's error is the one to report
    throw error;
  }
  const started = platform;
  return {
    platform: started,
    apps,
    toEngine,
    facts,
    send: <T = unknown>(command: CommandEnvelope, timeoutMs = 10_000) =>
      started.bus.request<CommandReply<T>>(
        Topics.interruptCommands,
        { key: (command.data as { runId: string }).runId, value: command },
        { timeoutMs },
      ),
    close,
  };
}
