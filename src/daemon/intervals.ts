import type { Logger } from 'pino';
import type { Config } from '../config/load.ts';

/** setTimeout's longest delay; longer waits are taken in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export interface RefreshSource {
  name: string;
  everyMs: number;
}

/** The sources synced on their own `refreshIntervalMs` rather than on a cron schedule. */
export function refreshSources(config: Config): RefreshSource[] {
  return config.sources.flatMap((s) => (s.refreshIntervalMs ? [{ name: s.name, everyMs: s.refreshIntervalMs }] : []));
}

/**
 * Asks for a sync of each source `everyMs` after its last one: the first is due `everyMs` after the
 * sync the index recorded (`lastSynced`, so a restarted daemon keeps the rhythm; at once when that
 * is past or there is none), each next one `everyMs` after the previous request.
 */
export function startRefreshTimers(
  sources: RefreshSource[],
  lastSynced: ReadonlyMap<string, number>,
  request: (source: string) => void,
  log: Logger,
): { stop(): void } {
  const timers = new Map<string, NodeJS.Timeout>();
  let stopped = false;
  const at = (s: RefreshSource, due: number) => {
    if (stopped) return;
    const wait = Math.max(0, due - Date.now());
    timers.set(
      s.name,
      setTimeout(() => {
        if (wait > MAX_DELAY_MS) return at(s, due);
        request(s.name);
        at(s, Date.now() + s.everyMs);
      }, Math.min(wait, MAX_DELAY_MS)),
    );
  };
  for (const s of sources) {
    const last = lastSynced.get(s.name);
    const due = last === undefined ? Date.now() : last + s.everyMs;
    log.info({ source: s.name, refreshIntervalMs: s.everyMs, next: new Date(Math.max(due, Date.now())) }, 'scheduled');
    at(s, due);
  }
  return {
    stop() {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
