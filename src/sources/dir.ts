import { constants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Snapshot, SourceFile } from './types.ts';
import { RagsyncError } from '../core/errors.ts';
import { shownPath } from '../core/shown-path.ts';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/**
 * A plain folder: listed with stat, read from disk. Only regular files and real folders inside the
 * root are listed: symbolic links are never followed (one pointing outside would index, and show
 * to every searcher, whatever it points at), and FIFOs, sockets and devices are left out (reading
 * a FIFO waits forever for a writer).
 */
export async function dirSnapshot(root: string, match: (path: string) => boolean): Promise<Snapshot> {
  let st;
  try {
    st = await stat(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RagsyncError(`folder not found: ${root}`);
    if (code === 'EACCES' || code === 'EPERM') throw new RagsyncError(`folder not readable (permission denied): ${root}`);
    throw err;
  }
  if (!st.isDirectory()) throw new RagsyncError(`not a folder: ${root}`);
  const files: SourceFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(full);
      } else if (e.isFile()) {
        const path = relative(root, full).split(sep).join('/');
        if (!match(path)) continue;
        const st = await stat(full);
        files.push({ path, size: st.size, stamp: `${st.size}:${Math.trunc(st.mtimeMs)}` });
      }
    }
  };
  await walk(root);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    commit: null,
    files,
    async *read(paths) {
      for (const path of paths) yield { path, bytes: await readRegularFile(join(root, path), path) };
    },
  };
}

/**
 * Reads a file listed as regular, refusing one swapped for a link or a FIFO since it was listed:
 * O_NOFOLLOW fails on a link, O_NONBLOCK keeps a FIFO from blocking the open, and fstat on the open
 * descriptor decides.
 */
async function readRegularFile(full: string, path: string): Promise<Buffer> {
  let fh;
  try {
    fh = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RagsyncError(`${shownPath(path)}: became a symbolic link since it was listed, not followed`);
    throw err;
  }
  try {
    if (!(await fh.stat()).isFile()) throw new RagsyncError(`${shownPath(path)}: no longer a regular file, not read`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
