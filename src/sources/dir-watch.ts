import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SKIP_DIRS } from './dir.ts';

export interface FolderWatch {
  /** Folders watched now. */
  readonly folders: number;
  close(): void;
}

export interface FolderWatchHandlers {
  /**
   * A file the source lists (one `match` accepts) may have changed, appeared or gone: its path, or
   * null when which one is not known (a watched folder removed or renamed).
   */
  change(path: string | null): void;
  /** A folder could not be watched (the inotify limit, permissions): changes in it go unseen. */
  error(folder: string, err: unknown): void;
}

/**
 * Watches a dir source's folder for changes to the files it lists: one non-recursive fs.watch (an
 * inotify watch on Linux) per folder, the folders the listing skips left out, folders that appear
 * watched as they come. Not `fs.watch(root, { recursive: true })`: on Linux, Node 20 emulates it
 * with an inotify watch per file and folder, set up synchronously (stat and readdir of the whole
 * tree with the event loop blocked), and runs into the system's watch limit on large trees.
 */
export async function watchFolder(root: string, match: (path: string) => boolean, on: FolderWatchHandlers): Promise<FolderWatch> {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  const rel = (full: string) => relative(root, full).split(sep).join('/');

  const unwatch = (folder: string) => {
    for (const [f, w] of watchers) {
      if (f === folder || f.startsWith(folder + sep)) {
        w.close();
        watchers.delete(f);
      }
    }
  };

  /** Watches `folder` and the folders under it; true when they hold a file the source lists. */
  const add = async (folder: string): Promise<boolean> => {
    if (closed || watchers.has(folder)) return false;
    try {
      const w = watch(folder, { persistent: true }, (_event, name) => void seen(folder, name));
      w.on('error', (err) => {
        unwatch(folder);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') on.error(folder, err);
      });
      watchers.set(folder, w);
    } catch (err) {
      on.error(folder, err);
      return false;
    }
    // Listed after the watch is set, so a file created in between is seen one way or the other.
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    let lists = false;
    for (const e of entries) {
      const full = join(folder, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && (await add(full))) lists = true;
      } else if (e.isFile() && match(rel(full))) lists = true;
    }
    return lists;
  };

  const seen = async (folder: string, name: string | null) => {
    if (closed) return;
    if (name === null) return on.change(null);
    if (SKIP_DIRS.has(name)) return;
    const full = join(folder, name);
    const st = await lstat(full).catch(() => null);
    if (closed) return;
    if (st?.isDirectory()) {
      if (await add(full)) on.change(`${rel(full)}/`);
    } else if (!st && watchers.has(full)) {
      unwatch(full);
      on.change(null);
    } else if ((!st || st.isFile()) && match(rel(full))) {
      on.change(rel(full));
    }
  };

  await add(root);
  return {
    get folders() {
      return watchers.size;
    },
    close() {
      closed = true;
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
