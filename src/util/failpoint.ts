/**
 * Crash injection for durability tests: with RAGSYNC_FAILPOINT=<name>:<n> the process kills
 * itself (SIGKILL, no cleanup) the n-th time it passes failpoint(<name>). A no-op otherwise.
 */
const spec = process.env.RAGSYNC_FAILPOINT ? /^([\w-]+):(\d+)$/.exec(process.env.RAGSYNC_FAILPOINT) : null;
const hits = new Map<string, number>();

export function failpoint(name: string): void {
  if (!spec || spec[1] !== name) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n === Number(spec[2])) process.kill(process.pid, 'SIGKILL');
}
