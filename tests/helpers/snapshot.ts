import { sha256 } from '../../src/core/hash.ts';
import type { Snapshot } from '../../src/sources/types.ts';

/** A folder's worth of files held in memory: a Snapshot is plain data (paths, stamps, bytes). */
export function memorySnapshot(files: Record<string, string>): Snapshot {
  const bytes = new Map(Object.entries(files).map(([p, t]) => [p, Buffer.from(t)]));
  return {
    commit: null,
    files: [...bytes].map(([path, b]) => ({ path, size: b.length, stamp: sha256(b).slice(0, 12) })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    async *read(paths) {
      for (const p of paths) yield { path: p, bytes: bytes.get(p)! };
    },
  };
}
