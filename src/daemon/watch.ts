import type { Logger } from 'pino';
import type { Config, SourceConfig } from '../config/load.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { watchFolder, type FolderWatch } from '../sources/dir-watch.ts';
import { pathMatcher } from '../sources/match.ts';

/** A folder that never stops changing is still synced: at the latest this many quiet periods after the first change. */
const MAX_WAIT_PERIODS = 10;

/**
 * Calls `fire` once no poke has come for `quietMs` (a burst of writes is one call), and at the
 * latest `maxWaitMs` after the first poke of the burst.
 */
export class Debounce {
  private timer: NodeJS.Timeout | null = null;
  private first = 0;
  private pokes = 0;

  constructor(
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
    private readonly fire: (pokes: number) => void,
  ) {}

  poke(): void {
    const now = Date.now();
    if (this.timer) clearTimeout(this.timer);
    else this.first = now;
    this.pokes++;
    this.timer = setTimeout(() => {
      this.timer = null;
      const n = this.pokes;
      this.pokes = 0;
      this.fire(n);
    }, Math.max(0, Math.min(this.quietMs, this.first + this.maxWaitMs - now)));
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pokes = 0;
  }
}

/** The dir sources the daemon watches: every one with `--watch` (but those set `"watch": false`), else those set `"watch": true`. */
export function watchedSources(config: Config, all: boolean): SourceConfig[] {
  const watched = config.sources.filter((s) => config.kinds.get(s.kind).ownFields?.includes('watch') && (s.watch ?? all));
  if (all && !watched.length) throw new RagsyncError('--watch: the config has no dir source to watch', EXIT.usage);
  return watched;
}

/**
 * Watches each source's folder and asks for a sync of it (`request`) once its changes settle:
 * `quietMs` without a change to a file the source lists (include/exclude applied).
 */
export async function watchSources(
  sources: SourceConfig[],
  quietMs: number,
  request: (source: string) => void,
  log: Logger,
): Promise<{ close(): void }> {
  const watches: FolderWatch[] = [];
  const debounces: Debounce[] = [];
  for (const s of sources) {
    let last: string | null = null;
    const debounce = new Debounce(quietMs, quietMs * MAX_WAIT_PERIODS, (changes) => {
      log.info({ source: s.name, changes, path: last }, 'changes seen: syncing');
      request(s.name);
    });
    debounces.push(debounce);
    const w = await watchFolder(s.root, pathMatcher(s.include, s.exclude), {
      change: (path) => {
        last = path;
        debounce.poke();
      },
      rewatched: (folder) => log.info({ source: s.name, folder }, `${folder} was replaced (renamed over or its symlink swapped): watching the new folder, syncing the source`),
      error: (folder, err) =>
        log.warn({ source: s.name, folder, err: errorMessage(err) }, `cannot watch ${folder}: changes there wait for a scheduled run${limitHint(err)}`),
    });
    watches.push(w);
    log.info({ source: s.name, root: s.root, folders: w.folders, debounceMs: quietMs }, 'watching');
  }
  return {
    close() {
      for (const d of debounces) d.cancel();
      for (const w of watches) w.close();
    },
  };
}

function limitHint(err: unknown): string {
  return (err as NodeJS.ErrnoException).code === 'ENOSPC' ? ' (the inotify watch limit is reached: raise fs.inotify.max_user_watches)' : '';
}
