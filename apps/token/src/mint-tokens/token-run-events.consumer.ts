import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { assertRunEvent, ConsumerGroups, Topics } from '@openwop/contracts';
import type { Bus, IncomingMessage, Subscription } from '@openwop/platform-bus';
import { BUS, DATA_SOURCE } from '@openwop/platform-nest';
import { tokenChangesFor, type KeyRing } from '@openwop/token-domain';
import { transaction } from '@openwop/platform-db';
import type { DataSource } from 'typeorm';
import { ResolutionTokenRepository } from '../common/resolution-token.repository';
import type { TokenSettings } from '../key-ring/token-settings';
import { KEY_RING, TOKEN_SETTINGS } from '../token.di-tokens';

/**
 * Follows the run event log from its beginning: mints a resolve and an inspect-only token for each
 * `interrupt.requested`, and invalidates them when the interrupt is resolved or the run ends.
 * Idempotent and deterministic, so redelivery or a replay from offset 0 leaves the same rows.
 */
@Injectable()
export class TokenRunEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(KEY_RING) private readonly ring: KeyRing,
    @Inject(TOKEN_SETTINGS) private readonly settings: TokenSettings,
    private readonly tokens: ResolutionTokenRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      group: ConsumerGroups.token,
      topics: [Topics.runEvents],
      fromBeginning: true,
      handler: (m) => this.handle(m),
      batchHandler: (ms) => this.handleBatch(ms),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  /** One event: a batch of one (the bus's fallback after a failed batch, one message at a time). */
  handle(message: IncomingMessage): Promise<void> {
    return this.handleBatch([message]);
  }

  /**
   * The waiting events of one partition: their token changes, in order, in one transaction, or as
   * one statement when they make one (a run's start, its end).
   */
  async handleBatch(messages: readonly IncomingMessage[]): Promise<void> {
    const options = { ring: this.ring, defaultTtlMs: this.settings.defaultTtlMs };
    const changes = messages.flatMap((m) => tokenChangesFor(assertRunEvent(m.value), options));
    const statements = this.tokens.statementsFor(changes);
    if (statements.length === 0) return;
    if (statements.length === 1) await this.ds.query(statements[0]!.sql, [...statements[0]!.params]);
    else await transaction(this.ds, (manager) => this.tokens.apply(manager, statements));
  }
}
