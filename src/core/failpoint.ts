/**
 * Crash injection for durability tests: with RAGSYNC_FAILPOINT=<name>:<n> the process kills
 * itself (SIGKILL, no cleanup) the n-th time it passes failpoint(<name>). A no-op otherwise.
 * <name>:<n>:stop sends SIGSTOP instead: the process freezes there (holding whatever it holds)
 * until the test sends SIGCONT — how the lock and graceful-stop tests catch a run mid-way.
 */
const spec = process.env.RAGSYNC_FAILPOINT ? /^([\w-]+):(\d+)(?::(kill|stop))?$/.exec(process.env.RAGSYNC_FAILPOINT) : null;
const hits = new Map<string, number>();

export function failpoint(name: string): void {
  if (!spec || spec[1] !== name) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n === Number(spec[2])) process.kill(process.pid, spec[3] === 'stop' ? 'SIGSTOP' : 'SIGKILL');
}
