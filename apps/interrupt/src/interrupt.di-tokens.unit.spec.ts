import { timerOptionsFromEnv } from './interrupt.di-tokens';

describe('timer options', () => {
  it('defaults to 250 ms and reads INTERRUPT_TIMER_MS', () => {
    expect(timerOptionsFromEnv({})).toEqual({ intervalMs: 250, batchSize: 50 });
    expect(timerOptionsFromEnv({ INTERRUPT_TIMER_MS: '40' }).intervalMs).toBe(40);
  });

  it.each(['0', '-5', 'soon', '1.5'])('refuses INTERRUPT_TIMER_MS=%s', (raw) => {
    expect(() => timerOptionsFromEnv({ INTERRUPT_TIMER_MS: raw })).toThrow(/INTERRUPT_TIMER_MS/);
  });
});
