import { notifierOptionsFromEnv } from './notifier.options';

describe('notifier options: delivery retention', () => {
  it('defaults to delivered 7 days, dead letters 30 days, a sweep a minute, 1,000 rows a statement', () => {
    expect(notifierOptionsFromEnv({}).retention).toEqual({
      settledMs: 7 * 24 * 3600 * 1000,
      deadMs: 30 * 24 * 3600 * 1000,
      batchSize: 1000,
      sweepEveryMs: 60_000,
    });
  });

  it('reads WEBHOOK_RETAIN_DELIVERED_MS, WEBHOOK_RETAIN_DEAD_MS and WEBHOOK_PRUNE_EVERY_MS; refuses what is not a positive integer', () => {
    expect(
      notifierOptionsFromEnv({
        WEBHOOK_RETAIN_DELIVERED_MS: '3600000',
        WEBHOOK_RETAIN_DEAD_MS: '86400000',
        WEBHOOK_PRUNE_EVERY_MS: '5000',
      }).retention,
    ).toMatchObject({ settledMs: 3_600_000, deadMs: 86_400_000, sweepEveryMs: 5000 });
    expect(() => notifierOptionsFromEnv({ WEBHOOK_RETAIN_DEAD_MS: '0' })).toThrow(
      /WEBHOOK_RETAIN_DEAD_MS must be a positive integer/,
    );
    expect(() => notifierOptionsFromEnv({ WEBHOOK_RETAIN_DELIVERED_MS: '7d' })).toThrow(
      /WEBHOOK_RETAIN_DELIVERED_MS/,
    );
  });
});
