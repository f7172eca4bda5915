import { open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { constants, existsSync, statSync } from 'node:fs';
import type { Snapshot, SourceFile } from './types.ts';
import { RagsyncError, errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';
import { shownPath } from '../core/shown-path.ts';

/** Folders never listed (nor watched). */
export const SKIP_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/**
 * A file modified this close to its listing may be modified again without its stamp moving (file
 * times are coarse: a few ms on ext4, 1–2 s on some file systems), as git's "racy clean" entries:
 * its stamp is marked so the next listing does not match it and reads the file once more.
 */
const RACY_MS = 2000;

/**
 * A plain folder: listed with stat, read from disk. Only regular files and real folders inside the
 * root are listed: symbolic links are never followed and FIFOs, sockets and devices are left out.
 */
export async function dirSnapshot(root: string, match: (path: string) => boolean): Promise<Snapshot> {
  if (!existsSync(root)) throw new RagsyncError(`folder not found: ${root}`);
  if (!statSync(root).isDirectory()) throw new RagsyncError(`${root} is not a folder`);
  const files: SourceFile[] = [];
  const listedAt = Date.now();
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(full);
      } else if (e.isFile()) {
        const path = relative(root, full).split(sep).join('/');
        if (!match(path)) continue;
        const st = await stat(full);
        const racy = st.mtimeMs > listedAt - RACY_MS ? ':racy' : '';
        files.push({ path, size: st.size, stamp: `${st.size}:${Math.trunc(st.mtimeMs)}${racy}` });
      }
    }
  };
  await walk(root).catch((err: unknown) => {
    throw new RagsyncError(describeIoError(err) ?? `cannot list ${root}: ${errorMessage(err)}`);
  });
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
 * Reads a file that was listed as a regular file, refusing one swapped since for a symbolic link
 * (which could point anywhere: its target would be indexed and shown to every searcher) or a FIFO
 * (whose open would wait for a writer forever): O_NOFOLLOW fails on a link, O_NONBLOCK keeps the
 * open from waiting, and fstat on the open descriptor decides.
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
