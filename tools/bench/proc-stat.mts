/**
 * CPU time of processes from /proc (Linux), shared by the bench tools that account CPU per process
 * (`proc-cpu.mjs`, `floor.mts`). Times are in clock ticks of {@link HZ} per second.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** USER_HZ on Linux. */
export const HZ = 100;

export interface ProcTicks {
  readonly comm: string;
  /** utime + stime of the process itself. */
  readonly self: number;
  /** cutime + cstime: what the children it reaped used (Postgres' postmaster reaps closed backends). */
  readonly children: number;
}

/** The CPU ticks of process `pid`, or undefined when it is gone. */
export function procTicks(pid: number | string): ProcTicks | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
    return {
      comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
      self: Number(f[11]) + Number(f[12]),
      children: Number(f[13]) + Number(f[14]),
    };
  } catch {
    return undefined;
  }
}

/**
 * The ticks of every `postgres` process, reaped backends included; with PG_POSTMASTER_PID set (a
 * private cluster's postmaster), only that server's: the postmaster and its children.
 */
export function postgresTicks(): number {
  const only = process.env['PG_POSTMASTER_PID'];
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (only && pid !== only && parentPid(pid) !== only) continue;
    const s = procTicks(pid);
    if (s?.comm === 'postgres') sum += s.self + s.children;
  }
  return sum;
}

function parentPid(pid: string): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

/** The pid of the local broker that `tools/kafka/kafka.sh` started, if any. */
export function brokerPid(): string | undefined {
  try {
    return readFileSync(
      fileURLToPath(new URL('../../.infra/kafka/broker.pid', import.meta.url)),
      'utf8',
    ).trim();
  } catch {
    return undefined;
  }
}

export const ticksToMs = (ticks: number): number => (ticks * 1000) / HZ;
