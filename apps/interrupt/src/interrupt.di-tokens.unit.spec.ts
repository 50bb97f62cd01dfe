import { timerOptionsFromEnv } from './interrupt.di-tokens';

describe('timer options', () => {
  it('defaults to 250 ms and 200 rows a batch, and reads INTERRUPT_TIMER_MS and INTERRUPT_TIMER_BATCH', () => {
    expect(timerOptionsFromEnv({})).toEqual({ intervalMs: 250, batchSize: 200 });
    expect(timerOptionsFromEnv({ INTERRUPT_TIMER_MS: '40' }).intervalMs).toBe(40);
    expect(timerOptionsFromEnv({ INTERRUPT_TIMER_BATCH: '500' }).batchSize).toBe(500);
  });

  it('polls every second in the one-process host, which is told of every due time it writes; the setting still wins', () => {
    expect(timerOptionsFromEnv({}, 'embedded').intervalMs).toBe(1_000);
    expect(timerOptionsFromEnv({ INTERRUPT_TIMER_MS: '40' }, 'embedded').intervalMs).toBe(40);
  });

  it.each(['0', '-5', 'soon', '1.5'])('refuses INTERRUPT_TIMER_MS=%s', (raw) => {
    expect(() => timerOptionsFromEnv({ INTERRUPT_TIMER_MS: raw })).toThrow(/INTERRUPT_TIMER_MS/);
  });

  it.each(['0', '-5', 'many', '2.5'])('refuses INTERRUPT_TIMER_BATCH=%s', (raw) => {
    expect(() => timerOptionsFromEnv({ INTERRUPT_TIMER_BATCH: raw })).toThrow(/INTERRUPT_TIMER_BATCH/);
  });
});
