import type { DocumentRecord } from '../core/types.ts';
import type { IndexWriter } from './roles.ts';

/** IndexWriter.writeDocuments over its batched write: one batch, removals first, one commit. */
export async function writeInOne(w: Pick<IndexWriter, 'beginDocuments'>, source: string, docs: DocumentRecord[], removePaths: string[]): Promise<void> {
  const write = await w.beginDocuments(source);
  try {
    await write.remove(removePaths);
    await write.write(docs);
    await write.commit();
  } catch (err) {
    await write.rollback();
    throw err;
  }
}
