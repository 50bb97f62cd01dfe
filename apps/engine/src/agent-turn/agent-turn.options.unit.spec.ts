import { agentTurnOptionsFromEnv } from './agent-turn.worker';

describe('agentTurnOptionsFromEnv', () => {
  it('defaults to 64 turns at once, a 250 ms poll and a 30 s lease', () => {
    expect(agentTurnOptionsFromEnv({})).toMatchObject({ concurrency: 64, pollMs: 250, leaseMs: 30_000 });
  });

  it('polls every second in the one-process host, where every owed turn kicks the worker', () => {
    expect(agentTurnOptionsFromEnv({}, 'embedded').pollMs).toBe(1_000);
    expect(agentTurnOptionsFromEnv({ AGENT_TURN_POLL_MS: '40' }, 'embedded').pollMs).toBe(40);
  });

  it('reads the settings; 0 turns at once is an instance that runs none', () => {
    expect(
      agentTurnOptionsFromEnv({
        AGENT_TURN_CONCURRENCY: '0',
        AGENT_TURN_POLL_MS: '50',
        AGENT_TURN_LEASE_MS: '2000',
      }),
    ).toMatchObject({ concurrency: 0, pollMs: 50, leaseMs: 2000 });
  });

  it.each([
    ['AGENT_TURN_CONCURRENCY', '-1'],
    ['AGENT_TURN_CONCURRENCY', '1.5'],
    ['AGENT_TURN_POLL_MS', '0'],
    ['AGENT_TURN_LEASE_MS', '50'],
    ['AGENT_TURN_LEASE_MS', 'soon'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => agentTurnOptionsFromEnv({ [name]: value })).toThrow(name);
  });
});
