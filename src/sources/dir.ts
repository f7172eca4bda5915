import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { Snapshot, SourceFile } from './types.ts';
import { RagsyncError, errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

/** A plain folder: listed with stat, read from disk. */
export async function dirSnapshot(root: string, match: (path: string) => boolean): Promise<Snapshot> {
  if (!existsSync(root)) throw new RagsyncError(`folder not found: ${root}`);
  if (!statSync(root).isDirectory()) throw new RagsyncError(`${root} is not a folder`);
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
  await walk(root).catch((err: unknown) => {
    throw new RagsyncError(describeIoError(err) ?? `cannot list ${root}: ${errorMessage(err)}`);
  });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    commit: null,
    files,
    async *read(paths) {
      for (const path of paths) yield { path, bytes: await readFile(join(root, path)) };
    },
  };
}
