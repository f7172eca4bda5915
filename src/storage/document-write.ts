import type { DocumentRecord } from '../core/types.ts';
import type { IndexWriter } from './roles.ts';

/**
 * The one way documents are written: `removePaths` removed, then `batches` of documents written,
 * in one batched write that commits at the end and rolls back whole on any failure (what
 * IndexWriter.writeDocuments does with one batch, and a run's apply with many).
 */
export async function writeInOne(
  w: Pick<IndexWriter, 'beginDocuments'>,
  source: string,
  removePaths: string[],
  batches: Iterable<DocumentRecord[]> | AsyncIterable<DocumentRecord[]>,
): Promise<void> {
  const write = await w.beginDocuments(source);
  try {
    await write.remove(removePaths);
    for await (const docs of batches) await write.write(docs);
    await write.commit();
  } catch (err) {
    await write.rollback();
    throw err;
  }
}
