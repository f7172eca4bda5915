import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ChunkHit } from '../core/types.ts';
import type { Lines } from './permalink.ts';

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** Files larger than this are not searched for a passage's lines. */
const MAX_FILE_BYTES = 4 * 2 ** 20;

/**
 * The lines of the file a passage spans. A chunk that records its range (startLine and endLine,
 * 1-based and inclusive) is taken at its word. Otherwise the passage is looked for in the
 * checkout: the first line of its content that is long enough to be telling, then as many lines
 * as the content has. Null when neither works (a normalised text, a file changed since): the link
 * then goes to the file without a range.
 */
export function passageLines(hit: ChunkHit, root: string | null, files: Map<string, string[] | null>): Lines | null {
  // Chunks that record their range carry it on the hit (or, from older chunkers, in metadata).
  const ranged = hit as ChunkHit & { startLine?: unknown; endLine?: unknown };
  const start = int(ranged.startLine) ?? int(hit.metadata.startLine);
  const end = int(ranged.endLine) ?? int(hit.metadata.endLine);
  if (start && end && end >= start) return { start, end };
  if (!root) return null;
  const key = join(root, hit.path);
  let lines = files.get(key);
  if (lines === undefined) {
    try {
      lines = statSync(key).size <= MAX_FILE_BYTES ? readFileSync(key, 'utf8').split('\n').map((l) => l.trim()) : null;
    } catch {
      lines = null;
    }
    files.set(key, lines);
  }
  if (!lines) return null;
  const own = hit.content.split('\n').map((l) => l.trim());
  const probe = own.findIndex((l) => Array.from(l).length >= 6);
  if (probe < 0) return null;
  const at = lines.indexOf(own[probe]!);
  if (at < 0) return null;
  const first = Math.max(1, at + 1 - probe);
  return { start: first, end: Math.min(lines.length, first + own.length - 1) };
}
