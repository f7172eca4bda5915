import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { SearchStore, SyncStore } from '../../src/storage/roles.ts';
import { defaultAnalyzer, indexTerms } from '../../src/core/text/analyzer.ts';
import { sha256 } from '../../src/core/hash.ts';
import type { DocumentRecord, LexiconEntry } from '../../src/core/types.ts';
import { freshSchema, needPostgres } from './postgres.ts';
import { tempDir } from './tmp.ts';
import { openIndex } from '../../src/storage/open.ts';

/**
 * The storage backends a suite runs against, each making fresh, empty index locations (`db` as a
 * config names it): a SQLite file in a temp folder, a new schema on the test PostgreSQL. Suites
 * take them with describe.each, so one body of tests holds for every backend.
 */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Whether the backend can run here (Postgres needs a server: tests/helpers/pg-setup.ts). */
  ok: boolean;
  /** The suite title (for Postgres: with the skip reason, or failing under CI=true). */
  title(name: string): string;
  /** A fresh index location and its cleanup. */
  fresh(): { db: string; cleanup: () => Promise<void> };
}

const pg = needPostgres();

export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    ok: true,
    title: (name) => `${name} (sqlite)`,
    fresh() {
      const t = tempDir('ragsync-roles-');
      return { db: join(t.dir, 'index.db'), cleanup: async () => t.cleanup() };
    },
  },
  {
    name: 'postgres',
    ok: pg.ok,
    title: (name) => pg.title(`${name} (postgres)`),
    fresh() {
      const s = freshSchema();
      return { db: s.url, cleanup: s.drop };
    },
  },
];

/** A document of Markdown-ish chunks with the default analyzer's terms, as sync would write it. */
export function doc(path: string, texts: string[], opts: { metadata?: Record<string, unknown>; chunkMeta?: Record<string, unknown>[]; heading?: string; lexicon?: LexiconEntry[] } = {}): DocumentRecord {
  return {
    path,
    contentHash: sha256(texts.join('\n')),
    stamp: `s:${texts.length}`,
    size: texts.join('\n').length,
    chunker: 'test@1',
    title: path.replace(/\.md$/, ''),
    metadata: opts.metadata ?? {},
    lexicon: opts.lexicon,
    chunks: texts.map((text, ordinal) => ({
      ordinal,
      key: `${path}#${ordinal}`,
      heading: opts.heading ?? '',
      content: text,
      text,
      textHash: sha256(text),
      tokens: text.length,
      terms: indexTerms(defaultAnalyzer, text),
      headTerms: indexTerms(defaultAnalyzer, opts.heading ?? ''),
      metadata: opts.chunkMeta?.[ordinal] ?? {},
    })),
  };
}

/**
 * What an index holds, read through the roles (so the same on every backend): chunks in (source,
 * path, ordinal) order with their text hash, and each chunk's vector under `fingerprint` (hex).
 */
export async function snapshotIndex(db: string, fingerprint: string) {
  const store = openIndex({ db }, 'admin', { readOnly: true });
  try {
    const chunks: { source: string; path: string; hash: string }[] = [];
    const vectors = new Map<string, string>();
    for await (const r of store.exportChunks(undefined, { vectorsOf: fingerprint })) {
      chunks.push({ source: r.source, path: r.path, hash: r.textHash });
      if (r.vector) vectors.set(r.textHash, Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength).toString('hex'));
    }
    return { chunks, vectors: [...vectors].sort(([a], [b]) => (a < b ? -1 : 1)), distinct: new Set(chunks.map((c) => c.hash)) };
  } finally {
    await store.close();
  }
}

/**
 * Stores a test opens, closed after it with whatever else it asked to clean up: call `stores()`
 * in a describe body; it registers its own afterEach.
 */
export function stores() {
  const open: { close(): Promise<void> }[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => {});
    for (const c of cleanups.splice(0)) await c();
  });
  const keep = <S extends { close(): Promise<void> }>(s: S) => (open.push(s), s);
  return {
    sync: (db: string, opts: { dryRun?: boolean } = {}): SyncStore => keep(openIndex({ db }, 'sync', opts)),
    search: (db: string, opts: { oneShot?: boolean } = {}): SearchStore => keep(openIndex({ db }, 'search', opts)),
    /** Runs `c` after the test (a schema drop, a temp folder). */
    later: (c: () => Promise<void> | void) => void cleanups.push(c),
  };
}
