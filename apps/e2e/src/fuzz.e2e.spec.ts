import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { REPO_ROOT } from '@openwop/testing';

// The request fuzzer (tools/fuzz) against the embedded host on a fresh Postgres database, small:
// every endpoint gets random and malformed requests; no 5xx, every 4xx in the spec's envelope,
// refusals write nothing and accepted requests write only the runs they name.

interface FuzzResult {
  readonly requests: number;
  readonly fiveXx: number;
  readonly envelopeViolations: number;
  readonly unintendedWrites: number;
  readonly acceptedRefusals: number;
  readonly hangs: number;
  readonly anomalies: number;
  readonly refusalOnlyBatches: number;
  readonly byEndpoint: Record<string, number>;
}

function runFuzzer(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [resolve(REPO_ROOT, 'tools/fuzz/fuzz.mts'), ...args],
      { cwd: REPO_ROOT, timeout: 55_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('request fuzzing of every gateway endpoint', () => {
  it('answers 500 random and malformed requests without a 5xx, a bare error or a stray write', async () => {
    const { code, stdout, stderr } = await runFuzzer(['--requests', '500', '--batch', '100', '--max-seconds', '45', '--json']);
    const line = stdout.split('\n').find((l) => l.startsWith('FUZZ_RESULT '));
    if (!line) throw new Error(`the fuzzer printed no result (exit ${code}):\n${stdout}\n${stderr.slice(-3000)}`);
    const result = JSON.parse(line.slice('FUZZ_RESULT '.length)) as FuzzResult;
    expect({
      fiveXx: result.fiveXx,
      envelopeViolations: result.envelopeViolations,
      unintendedWrites: result.unintendedWrites,
      acceptedRefusals: result.acceptedRefusals,
      hangs: result.hangs,
      anomalies: result.anomalies,
    }).toEqual({ fiveXx: 0, envelopeViolations: 0, unintendedWrites: 0, acceptedRefusals: 0, hangs: 0, anomalies: 0 });
    expect(result.requests).toBe(500);
    expect(result.refusalOnlyBatches).toBeGreaterThanOrEqual(2);
    expect(Object.keys(result.byEndpoint).length).toBeGreaterThanOrEqual(18);
    expect(code).toBe(0);
  }, 60_000);
});
