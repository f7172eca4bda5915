import { hostname } from 'node:os';

/** This process as a worker: its host, pid and start (ISO), recorded with its runs and leases. */
export function workerIdentity(): { host: string; pid: number; started: string } {
  return { host: hostname(), pid: process.pid, started: new Date(Math.round(performance.timeOrigin)).toISOString() };
}
