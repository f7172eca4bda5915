import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { type IndexOptions, type IndexResult } from '../../src/sync/run.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { runIndex } from '../../src/engine/library.ts';

/** The hash embedder, recording every text it is asked to embed. */
export class RecordingEmbedder extends HashEmbedder {
  readonly seen: string[] = [];
  override async embed(texts: string[]): Promise<Float32Array[]> {
    this.seen.push(...texts);
    return super.embed(texts);
  }
}

export function gitConfig(dir: string, url: string, extra: Partial<ConfigInput['sources'][number]> = {}, top: Partial<ConfigInput> = {}): Config {
  return parseConfig({
    db: join(dir, 'index.db'),
    sources: [{ name: 'docs', kind: 'git', url, include: ['**/*.md'], ...extra }],
    ...top,
  });
}

export async function index(config: Config, opts: IndexOptions = {}): Promise<IndexResult & { sent: string[] }> {
  if (config.embedder.provider !== 'hash') throw new Error('index() records the hash embedder only');
  const embedder = new RecordingEmbedder(config.embedder.dims, config.embedder.batchSize);
  const result = await runIndex(config, { ...opts, embedder });
  return { ...result, sent: embedder.seen };
}

/** Reads the index back with plain SQL: what a person with sqlite3 would see. */
export function snapshotDb(file: string) {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const chunks = db
      .prepare(
        `SELECT s.name AS source, d.path, c.ordinal, c.text_hash AS hash FROM chunks c
         JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         ORDER BY s.name, d.path, c.ordinal`,
      )
      .all() as { source: string; path: string; ordinal: number; hash: string }[];
    const vectors = db
      .prepare('SELECT fingerprint, text_hash AS hash, hex(embedding) AS blob FROM vectors ORDER BY fingerprint, text_hash')
      .all() as { fingerprint: string; hash: string; blob: string }[];
    const distinct = new Set(chunks.map((c) => c.hash));
    return { chunks, vectors, distinct, vectorHashes: new Set(vectors.map((v) => v.hash)) };
  } finally {
    db.close();
  }
}
