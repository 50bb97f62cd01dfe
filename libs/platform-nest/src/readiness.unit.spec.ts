import { checkPlatformReadiness } from './readiness';

const never = <T>() => new Promise<T>(() => undefined);
const bus = (healthy: () => Promise<boolean>) => ({ healthy });
const db = (query: () => Promise<unknown>) => ({ query: jest.fn(query) });

describe('checkPlatformReadiness', () => {
  it('is ok when the bus is healthy and SELECT 1 answers', async () => {
    const dataSource = db(async () => [{ '?column?': 1 }]);
    const report = await checkPlatformReadiness({ bus: bus(async () => true), dataSource });
    expect(report).toEqual({ ok: true, checks: { bus: 'up', database: 'up' }, failing: [] });
    expect(dataSource.query).toHaveBeenCalledWith('SELECT 1');
  });

  it('names the bus when it reports unhealthy or throws', async () => {
    for (const healthy of [async () => false, async () => Promise.reject(new Error('broker gone'))]) {
      const report = await checkPlatformReadiness({ bus: bus(healthy), dataSource: db(async () => []) });
      expect(report).toEqual({ ok: false, checks: { bus: 'down', database: 'up' }, failing: ['bus'] });
    }
  });

  it('names the database when SELECT 1 fails', async () => {
    const report = await checkPlatformReadiness({
      bus: bus(async () => true),
      dataSource: db(async () => Promise.reject(new Error('connection refused'))),
    });
    expect(report).toEqual({ ok: false, checks: { bus: 'up', database: 'down' }, failing: ['database'] });
  });

  it('counts a dependency that does not answer within the budget as down, both at once', async () => {
    const started = Date.now();
    const report = await checkPlatformReadiness({ bus: bus(never), dataSource: db(never) }, 50);
    expect(report).toEqual({
      ok: false,
      checks: { bus: 'down', database: 'down' },
      failing: ['bus', 'database'],
    });
    // Checked in parallel: one budget, not two (generous bound for a loaded machine).
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
