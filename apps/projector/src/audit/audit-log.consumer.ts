import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { ConsumerGroups, Topics } from '@openwop/contracts';
import type { AuditFact } from '@openwop/audit-chain';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { transaction, type DecisionProjection } from '@openwop/platform-db';
import { BUS, DATA_SOURCE, DECISION_PROJECTION } from '@openwop/platform-nest';
import { appendFacts, readFact } from './audit-log.store';

/** How long a fetch of audit facts may wait to gather more (how much later a record is chained, at most). */
export const AUDIT_GATHER_MS = 250;

/**
 * The audit log's writer: its own consumer group on the audit-fact topic (keyed by tenant, so a
 * tenant's facts reach one instance, in order). A batch is appended in one transaction and the
 * offset committed after it: a crash re-reads the facts and records none twice.
 */
@Injectable()
export class AuditLogConsumer implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditLog');
  private subscription: Subscription | undefined;
  private unregister: (() => void) | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Optional() @Inject(DECISION_PROJECTION) private readonly inDecision: DecisionProjection | null = null,
  ) {}

  /**
   * In one process, the facts a decision appends are chained in its own transaction (ADR 0039): the
   * same code as the consumer's, with no outbox row, topic hop or transaction of their own.
   */
  onModuleInit(): void {
    this.unregister = this.inDecision?.registerAuditWriter(async (manager, values) => {
      const facts = values.map((value) => {
        const fact = readFact(value);
        if (typeof fact === 'string') throw new Error(`not an audit fact: ${fact}`);
        return fact;
      });
      await appendFacts(manager, facts);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.audit,
      topics: [Topics.auditFacts],
      fromBeginning: true,
      // No request waits on the chain: gathering a fetch's facts for a moment appends many
      // decisions in one transaction (docs/performance-log.md, round 8).
      gatherMs: AUDIT_GATHER_MS,
      // Each fact is a decision already taken: an outage of any length delays the chain, never
      // dead-letters a link of it (transient failures: the bus's `isTransientFailure`).
      transientBudgetMs: Infinity,
      handler: (m) => this.handleBatch([m]),
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    await this.subscription?.stop();
  }

  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const facts: AuditFact[] = [];
    for (const m of messages) {
      const fact = readFact(m.value);
      // A message that is no fact is no decision: logged, never chained.
      if (typeof fact === 'string') this.logger.warn(`audit topic message skipped: ${fact}`);
      else facts.push(fact);
    }
    if (facts.length > 0) await transaction(this.ds, (m) => appendFacts(m, facts));
  }
}
