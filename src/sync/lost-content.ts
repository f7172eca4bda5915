import type { IndexWriter } from '../storage/roles.ts';
import type { SourcePlan } from './plan.ts';

/** What applying a plan would take out of the index, in passages (distinct chunk texts). */
export interface LostContent {
  /** Distinct passages the source holds now (0 when the plan replaces nothing: not counted). */
  held: number;
  /** Of those, the passages no document would hold once the plan is applied. */
  dropping: number;
  /** Documents removed or rewritten that lose at least one of them. */
  losing: number;
  /** Of those, the documents removed (deleted, or the old path of a rename). */
  removing: number;
}

/**
 * Judges a plan by the content it loses rather than the files it removes: the passages of the
 * documents it removes or rewrites (deleted, changed, the old path of a rename) that appear
 * nowhere in what the source holds afterwards (its untouched documents and every document the
 * plan writes). A file split, merged, renamed or moved loses nothing. Reads the stored text
 * hashes in one pass and keeps hashes only.
 */
export async function lostContent(store: IndexWriter, plan: SourcePlan): Promise<LostContent> {
  const removed = new Set(plan.delete);
  for (const w of plan.write) if (w.from) removed.add(w.from);
  const replaced = new Set(removed);
  for (const w of plan.write) if (w.kind === 'changed') replaced.add(w.doc.path);
  if (!replaced.size) return { held: 0, dropping: 0, losing: 0, removing: 0 };
  const after = new Set<string>();
  for (const w of plan.write) for (const c of w.doc.chunks) after.add(c.textHash);
  const held = new Set<string>();
  const replacedTexts = new Map<string, string[]>();
  await store.scanStoredTexts(plan.source, (path, textHash) => {
    held.add(textHash);
    if (!replaced.has(path)) after.add(textHash);
    else {
      const texts = replacedTexts.get(path);
      if (texts) texts.push(textHash);
      else replacedTexts.set(path, [textHash]);
    }
  });
  const dropped = new Set<string>();
  let losing = 0;
  let removing = 0;
  for (const [path, texts] of replacedTexts) {
    const lost = texts.filter((h) => !after.has(h));
    for (const h of lost) dropped.add(h);
    if (!lost.length) continue;
    losing++;
    if (removed.has(path)) removing++;
  }
  return { held: held.size, dropping: dropped.size, losing, removing };
}
