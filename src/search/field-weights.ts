import { RagsyncError, EXIT } from '../core/errors.ts';

/**
 * How much a keyword match in a chunk's head (title, heading path, tags) counts against one in its
 * body: BM25 column weights (head, 1). A title names what a passage is about; running text also
 * mentions what it is not about. RAGSYNC_HEAD_WEIGHT overrides it (0 = body only, as before).
 */
export const DEFAULT_HEAD_WEIGHT = 2;

export function headWeight(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.RAGSYNC_HEAD_WEIGHT;
  if (raw === undefined || raw === '') return DEFAULT_HEAD_WEIGHT;
  const w = Number(raw);
  if (!Number.isFinite(w) || w < 0) throw new RagsyncError(`RAGSYNC_HEAD_WEIGHT must be a number ≥ 0 (got ${JSON.stringify(raw)})`, EXIT.usage);
  return w;
}
