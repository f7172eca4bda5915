import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
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
  /** A watched folder was replaced by another at its path (a rename over it, a symlink swapped): the new one is watched now. */
  rewatched?(folder: string): void;
}

/** Which folder a path names now (symlinks followed), or null when none. */
const identity = (path: string) =>
  stat(path).then(
    (s) => (s.isDirectory() ? `${s.dev}:${s.ino}` : null),
    () => null,
  );

/**
 * Watches a dir source's folder for changes to the files it lists: one non-recursive fs.watch (an
 * inotify watch on Linux) per folder, the folders the listing skips left out, folders that appear
 * watched as they come. Not `fs.watch(root, { recursive: true })`: on Linux, Node 20 emulates it
 * with an inotify watch per file and folder, set up synchronously (stat and readdir of the whole
 * tree with the event loop blocked), and runs into the system's watch limit on large trees.
 *
 * An inotify watch follows the folder, not its path: a folder replaced at its path (`mv new old`,
 * `mv old old.bak && mv new old`, a `current` symlink swapped, as deploys do) would leave the
 * watch on the folder that went away. So each watch remembers which folder it is on, a folder
 * event naming a watched subfolder compares, and the root's parent is watched for the root's name:
 * a replaced folder is watched again (`rewatched`) and a full sync asked for.
 */
export async function watchFolder(root: string, match: (path: string) => boolean, on: FolderWatchHandlers): Promise<FolderWatch> {
  const watchers = new Map<string, FSWatcher>();
  /** The folder (device:inode) each watch is on. */
  const ids = new Map<string, string | null>();
  let closed = false;
  const rel = (full: string) => relative(root, full).split(sep).join('/');

  const unwatch = (folder: string) => {
    for (const [f, w] of watchers) {
      if (f === folder || f.startsWith(folder + sep)) {
        w.close();
        watchers.delete(f);
        ids.delete(f);
      }
    }
  };

  /** Watches `folder` and the folders under it; true when they hold a file the source lists. */
  const add = async (folder: string): Promise<boolean> => {
    if (closed || watchers.has(folder)) return false;
    // Which folder, taken before the watch: a replacement in between is seen as one later.
    const id = await identity(folder);
    if (closed || watchers.has(folder)) return false;
    try {
      const w = watch(folder, { persistent: true }, (_event, name) => void seen(folder, name));
      w.on('error', (err) => {
        unwatch(folder);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') on.error(folder, err);
      });
      watchers.set(folder, w);
      ids.set(folder, id);
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
      if (watchers.has(full) && ids.get(full) !== `${st.dev}:${st.ino}`) return replaced(full);
      if (await add(full)) on.change(`${rel(full)}/`);
    } else if (!st && watchers.has(full)) {
      unwatch(full);
      on.change(null);
    } else if ((!st || st.isFile()) && match(rel(full))) {
      on.change(rel(full));
    }
  };

  /** `folder` now names another folder than the one watched: watch that one, and sync everything. */
  const replaced = async (folder: string) => {
    unwatch(folder);
    await add(folder);
    if (closed) return;
    on.rewatched?.(folder);
    on.change(null);
  };

  await add(root);
  // The root's own replacement is seen from its parent (its own watch went with the old folder).
  let parent: FSWatcher | null = null;
  let checking: Promise<void> = Promise.resolve();
  const checkRoot = () =>
    (checking = checking.then(async () => {
      const id = await identity(root);
      if (closed || id === null || id === ids.get(root)) return;
      await replaced(root);
    }));
  try {
    parent = watch(dirname(root), { persistent: false }, (_event, name) => {
      if (name === null || name === basename(root)) void checkRoot();
    });
    parent.on('error', () => {});
  } catch {
    // a root at / or a parent we may not read: only the root's own watch
  }
  return {
    get folders() {
      return watchers.size;
    },
    close() {
      closed = true;
      parent?.close();
      for (const w of watchers.values()) w.close();
      watchers.clear();
      ids.clear();
    },
  };
}
