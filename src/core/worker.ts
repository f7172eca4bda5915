import { hostname } from 'node:os';

// The process's start, from its uptime: `performance.timeOrigin` would load perf_hooks (~1 ms of
// the hourly no-op). Taken once, so every record of this process names the same start.
let started: string | undefined;

/** This process as a worker: its host, pid and start (ISO), recorded with its runs and leases. */
export function workerIdentity(): { host: string; pid: number; started: string } {
  started ??= new Date(Date.now() - Math.round(process.uptime() * 1000)).toISOString();
  return { host: hostname(), pid: process.pid, started };
}
