import type { DocumentRecord } from '../core/types.ts';
import type { DocumentStamp, IndexWriter } from './roles.ts';

/**
 * The one way documents are written: `removePaths` removed, `restamps` set, then `batches` of documents written,
 * in one batched write that commits at the end and rolls back whole on any failure (what
 * IndexWriter.writeDocuments does with one batch, and a run's apply with many).
 */
export async function writeInOne(
  w: Pick<IndexWriter, 'beginDocuments'>,
  source: string,
  removePaths: string[],
  batches: Iterable<DocumentRecord[]> | AsyncIterable<DocumentRecord[]>,
  restamps: DocumentStamp[] = [],
): Promise<void> {
  const write = await w.beginDocuments(source);
  try {
    await write.remove(removePaths);
    if (restamps.length) await write.restamp(restamps);
    for await (const docs of batches) await write.write(docs);
    await write.commit();
  } catch (err) {
    await write.rollback();
    throw err;
  }
}
