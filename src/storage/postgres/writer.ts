import { failpoint } from '../../core/failpoint.ts';
import { sha256 } from '../../core/hash.ts';
import type { DocumentRecord, EmbedderInfo, LexiconEntry, StoredDocument } from '../../core/types.ts';
import type { DocumentStamp, DocumentWrite, IndexWriter, RefillPage, SourceInfo, SourceState, TextToRefill, VectorRecord } from '../roles.ts';
import { ident, LOCK_SPACE, type PgDb, type Queryable } from './db.ts';
import { chunkKeywords, type ChunkKeywords } from './terms.ts';
import { vectorLiteral } from './vectors.ts';
import { fence } from './leases.ts';
import { writeInOne } from '../document-write.ts';
import { HNSW_DEFAULTS } from '../../config/schema.ts';

export const nowIso = () => new Date().toISOString();

/** HNSW indexes vector up to 2000 dims and halfvec up to 4000; beyond, search is exact only. */
const VECTOR_HNSW_MAX = 2000;
const HALFVEC_HNSW_MAX = 4000;

/** The vector type a fingerprint's approximate index casts to (null: no approximate index). */
export function annType(dims: number): { type: string; ops: string } | null {
  if (dims <= VECTOR_HNSW_MAX) return { type: `vector(${dims})`, ops: 'vector_cosine_ops' };
  if (dims <= HALFVEC_HNSW_MAX) return { type: `halfvec(${dims})`, ops: 'halfvec_cosine_ops' };
  return null;
}

/** The name of a fingerprint's HNSW index (schema-local). */
export const annIndexName = (fingerprint: string) => `vectors_hnsw_${sha256(fingerprint).slice(0, 16)}`;

/** How a fingerprint's HNSW graph is built (config `hnsw`); absent fields take the defaults. */
export interface AnnBuild {
  /** Neighbours kept per node (pgvector's m; 2m on the bottom layer). */
  m?: number;
  /** Candidates kept while inserting (pgvector's ef_construction). */
  efConstruction?: number;
  /** maintenance_work_mem of the build, in MB (default: what the graph needs, up to BUILD_MEMORY_CAP_MB). */
  buildMemoryMb?: number;
}

/** The most memory a build takes unasked: a larger graph is finished on disk (slower) unless the config gives more. */
const BUILD_MEMORY_CAP_MB = 2048;

/**
 * maintenance_work_mem (MB) that holds the graph of `rows` vectors in memory, as pgvector 0.8 lays it
 * out: the vector, 2m neighbour slots of 16 bytes on the bottom layer, the element and allocation
 * overhead; a quarter more for the upper layers and the estimate's error. The build stops filling
 * memory where the graph no longer fits and inserts the rest on disk, many times slower.
 */
export function graphMemoryMb(rows: number, dims: number, halfvec: boolean, m: number): number {
  const perElement = 8 + dims * (halfvec ? 2 : 4) + 2 * m * 16 + 256;
  return Math.max(64, Math.ceil((rows * perElement * 1.25) / 2 ** 20));
}


export async function listSources(q: Queryable, name?: string): Promise<SourceState[]> {
  const r = await q.query<SourceState>(
    `SELECT s.name, s.kind, s.url, s.branch, s.commit_sha AS "commit", s.indexed_at AS "indexedAt",
            (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents,
            (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source_id = s.id) AS chunks
     FROM sources s WHERE $1::text IS NULL OR s.name = $1 ORDER BY s.name`,
    [name ?? null],
  );
  return r.rows;
}

export const bumpGeneration = (q: Queryable) => q.query(`UPDATE meta SET value = value + 1 WHERE key = 'generation'`);

/** The tables a search's plan depends on, analyzed at the end of a run that changed them. */
const PLANNED_TABLES = ['sources', 'documents', 'chunks', 'postings', 'vectors'];

export class PgIndexWriter implements IndexWriter {
  constructor(
    private readonly db: PgDb,
    /** Dry runs write nothing, not even source rows (their transaction is rolled back anyway). */
    private readonly dryRun = false,
    private readonly build: AnnBuild = {},
  ) {}

  async ensureSource(info: SourceInfo): Promise<SourceState> {
    if (!this.dryRun) {
      await this.db.query(
        `INSERT INTO sources (name, kind, url, branch) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, url = excluded.url, branch = excluded.branch`,
        [info.name, info.kind, info.url, info.branch],
      );
    }
    const [s] = await listSources(this.db.q, info.name);
    return s ?? { ...info, commit: null, indexedAt: null, documents: 0, chunks: 0 };
  }

  async setSourceCommit(name: string, commit: string | null, indexedAt: string, listing: string | null = null): Promise<void> {
    await this.db.tx(async (c) => {
      await fence(this.db, c, name);
      await c.query('UPDATE sources SET commit_sha = $1, indexed_at = $2, listing = $3 WHERE name = $4', [commit, indexedAt, listing, name]);
    });
  }

  async sourceListing(name: string): Promise<{ commit: string | null; listing: string | null } | null> {
    const [r] = await this.db.query<{ commit: string | null; listing: string | null }>(
      'SELECT commit_sha AS "commit", listing FROM sources WHERE name = $1',
      [name],
    );
    return r ?? null;
  }

  async forgetSourceListing(name: string): Promise<void> {
    if (this.dryRun) return;
    await this.db.tx(async (c) => {
      await fence(this.db, c, name);
      await c.query('UPDATE sources SET listing = NULL WHERE name = $1 AND listing IS NOT NULL', [name]);
    });
  }

  async forgetSource(name: string): Promise<boolean> {
    if (this.dryRun) return (await listSources(this.db.q, name)).length > 0;
    return (await this.db.query('DELETE FROM sources WHERE name = $1 RETURNING id', [name])).length > 0;
  }

  async listDocuments(source: string): Promise<StoredDocument[]> {
    return this.db.query<StoredDocument>(
      `SELECT d.path, d.content_hash AS "contentHash", d.stamp, d.size, d.chunker
       FROM documents d JOIN sources s ON s.id = d.source_id WHERE s.name = $1`,
      [source],
    );
  }

  async registerEmbedder(info: EmbedderInfo): Promise<void> {
    await this.db.query(
      `INSERT INTO embedders (fingerprint, provider, model, dims, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (fingerprint) DO NOTHING`,
      [info.fingerprint, info.provider, info.model, info.dims, nowIso()],
    );
  }

  /**
   * At the end of a run: refreshes the statistics searches plan by when stale, and builds the fingerprint's approximate (HNSW) index when it has none: one
   * build over the loaded vectors costs a fraction of keeping the graph up to date through every
   * insert of a first index (~10 ms per 1024-dim vector); later runs' few inserts maintain it.
   */
  async refreshCodePack(fingerprint: string): Promise<boolean> {
    // Searches plan by these tables' statistics: made fresh after a run that changed a tenth of one
    // (autovacuum would too, later, but never for a table of a few sources; without statistics the
    // planner filters by source with an exact scan instead of walking the HNSW index).
    const stale = await this.db.query<{ relname: string }>(
      `SELECT relname FROM pg_stat_user_tables
       WHERE schemaname = $1 AND relname = ANY ($2::text[])
         AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > n_live_tup / 10)`,
      [this.db.schema, PLANNED_TABLES],
    );
    if (stale.length && !this.dryRun) await this.db.query(`ANALYZE ${stale.map((t) => ident(t.relname)).join(', ')}`);
    const [e] = await this.db.query<{ dims: number }>('SELECT dims FROM embedders WHERE fingerprint = $1', [fingerprint]);
    const ann = e ? annType(e.dims) : null;
    if (!ann) return false;
    const name = annIndexName(fingerprint);
    const m = this.build.m ?? HNSW_DEFAULTS.m;
    const efConstruction = this.build.efConstruction ?? HNSW_DEFAULTS.efConstruction;
    const options = [`m=${m}`, `ef_construction=${efConstruction}`];
    const [built] = await this.db.query<{ options: string[] | null }>(
      `SELECT x.reloptions AS options FROM pg_class x JOIN pg_namespace n ON n.oid = x.relnamespace WHERE n.nspname = $1 AND x.relname = $2`,
      [this.db.schema, name],
    );
    // Built before with the settings asked for now (an index built before they were settable has
    // none: pgvector's own m 16, ef_construction 64).
    if (built && options.every((o) => (built.options ?? ['m=16', 'ef_construction=64']).includes(o))) return false;
    if (this.dryRun) return false;
    const fp = fingerprint.replace(/'/g, "''");
    const [{ rows }] = (await this.db.query<{ rows: number }>('SELECT count(*) AS rows FROM vectors WHERE fingerprint = $1', [fingerprint])) as [{ rows: number }];
    const memory = this.build.buildMemoryMb ?? Math.min(BUILD_MEMORY_CAP_MB, graphMemoryMb(rows, e!.dims, ann.type.startsWith('halfvec'), m));
    const create = async (parallel: boolean) =>
      this.db.tx(async (c) => {
        // Workers finishing at once build it once: the others wait here, then find it built.
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE.ann, this.db.schema]);
        const [now] = (await c.query<{ options: string[] | null }>(
          `SELECT x.reloptions AS options FROM pg_class x JOIN pg_namespace n ON n.oid = x.relnamespace WHERE n.nspname = $1 AND x.relname = $2`,
          [this.db.schema, name],
        )).rows;
        if (now && (!built || JSON.stringify(now.options) !== JSON.stringify(built.options))) return;
        await c.query(`SELECT set_config('maintenance_work_mem', $1, true)`, [`${Math.trunc(memory)}MB`]);
        if (!parallel) await c.query(`SET LOCAL max_parallel_maintenance_workers = 0`);
        // Settings changed: the new graph is built beside the old one, which searches keep using
        // until the swap commits.
        const target = built ? `${name}_next` : name;
        if (built) await c.query(`DROP INDEX IF EXISTS ${ident(target)}`);
        await c.query(
          `CREATE INDEX ${built ? '' : 'IF NOT EXISTS '}${ident(target)} ON vectors USING hnsw ((embedding::${ann.type}) ${ann.ops})
           WITH (m = ${Math.trunc(m)}, ef_construction = ${Math.trunc(efConstruction)}) WHERE fingerprint = '${fp}'`,
        );
        if (built) {
          await c.query(`DROP INDEX ${ident(name)}`);
          await c.query(`ALTER INDEX ${ident(target)} RENAME TO ${ident(name)}`);
        }
      });
    try {
      await create(true);
    } catch (err) {
      // A parallel build holds the graph in shared memory of the whole maintenance_work_mem, which a
      // small /dev/shm (a container's 64 MB) refuses; a serial build keeps it in its own memory.
      if (!/could not resize shared memory segment/i.test(String((err as Error).message))) throw err;
      await create(false);
    }
    return true;
  }

  async missingVectors(fingerprint: string, textHashes: Iterable<string>): Promise<Set<string>> {
    const missing = new Set(textHashes);
    if (!missing.size) return missing;
    const found = await this.db.query<{ text_hash: string }>(
      'SELECT text_hash FROM vectors WHERE fingerprint = $1 AND text_hash = ANY ($2::text[])',
      [fingerprint, [...missing]],
    );
    for (const r of found) missing.delete(r.text_hash);
    return missing;
  }

  async storedTextsMissingVectors(source: string, fingerprint: string, page?: RefillPage): Promise<TextToRefill[]> {
    // A later page: the first one found some, and the memo below has nothing to say.
    if (page && page.after > 0) return this.textsMissingVectors(source, fingerprint, page);
    // As in SQLite: "none" is remembered with the generation and the vector count, so later calls
    // with both unchanged skip the anti-join.
    const [state] = await this.db.query<{ generation: number; vectors: number; seen: boolean }>(
      `SELECT (SELECT value FROM meta WHERE key = 'generation') AS generation,
              (SELECT count(*) FROM vectors WHERE fingerprint = $1) AS vectors,
              EXISTS (SELECT 1 FROM vectors_complete vc WHERE vc.fingerprint = $1
                 AND vc.generation = (SELECT value FROM meta WHERE key = 'generation')
                 AND vc.vectors = (SELECT count(*) FROM vectors WHERE fingerprint = $1)) AS seen`,
      [fingerprint],
    );
    if (state!.seen) return [];
    const [any] = await this.db.query(
      `SELECT 1 FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.fingerprint = $1 AND v.text_hash = c.text_hash) LIMIT 1`,
      [fingerprint],
    );
    if (!any) {
      if (!this.dryRun) {
        await this.db.query(
          `INSERT INTO vectors_complete (fingerprint, generation, vectors) VALUES ($1, $2, $3)
           ON CONFLICT (fingerprint) DO UPDATE SET generation = excluded.generation, vectors = excluded.vectors`,
          [fingerprint, state!.generation, state!.vectors],
        );
      }
      return [];
    }
    return this.textsMissingVectors(source, fingerprint, page);
  }

  private async textsMissingVectors(source: string, fingerprint: string, page?: RefillPage): Promise<TextToRefill[]> {
    const rows = await this.db.query<TextToRefill>(
      `SELECT d.path, c.text_hash AS "textHash", c.text, c.tokens, c.id AS cursor
       FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
       WHERE s.name = $1 AND c.id > $3 AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.fingerprint = $2 AND v.text_hash = c.text_hash)
       ORDER BY c.id LIMIT $4`,
      [source, fingerprint, page?.after ?? 0, page?.limit ?? null],
    );
    // bigint ids arrive as strings.
    return rows.map((r) => ({ ...r, cursor: Number(r.cursor) }));
  }

  async putVectors(fingerprint: string, vectors: VectorRecord[]): Promise<void> {
    if (!vectors.length) return;
    this.db.assertLockHeld();
    await this.db.tx(async (c) => {
      await c.query(
        `INSERT INTO vectors (fingerprint, text_hash, dims, embedding, created_at)
         SELECT $1, h, vector_dims(e), e, $4 FROM unnest($2::text[], $3::vector[]) AS t(h, e)
         ON CONFLICT (fingerprint, text_hash) DO UPDATE SET dims = excluded.dims, embedding = excluded.embedding, created_at = excluded.created_at`,
        [fingerprint, vectors.map((v) => v.textHash), vectors.map((v) => vectorLiteral(v.vector)), nowIso()],
      );
      await bumpGeneration(c);
    });
  }

  async writeDocuments(source: string, docs: DocumentRecord[], removePaths: string[] = []): Promise<void> {
    return writeInOne(this, source, removePaths, [docs]);
  }

  async beginDocuments(source: string): Promise<DocumentWrite> {
    this.db.assertLockHeld();
    const [s] = await this.db.query<{ id: number }>('SELECT id FROM sources WHERE name = $1', [source]);
    if (!s) throw new Error(`unknown source ${source}`);
    return new PgDocumentWrite(this.db, await this.db.begin(), s.id, source);
  }

  async scanStoredTexts(source: string, sink: (path: string, textHash: string) => void): Promise<void> {
    const rows = await this.db.query<{ path: string; text_hash: string }>(
      `SELECT d.path, c.text_hash FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE s.name = $1`,
      [source],
    );
    for (const r of rows) sink(r.path, r.text_hash);
  }
}

/**
 * Documents of one source written in one transaction, fed in batches: readers on other connections
 * see all of it or none, at the commit. A failed write or remove rolls the whole write back.
 */
class PgDocumentWrite implements DocumentWrite {
  private readonly at = nowIso();

  constructor(
    private readonly db: PgDb,
    private readonly t: Awaited<ReturnType<PgDb['begin']>>,
    private readonly sourceId: number,
    private readonly source: string,
  ) {}

  async remove(paths: string[]): Promise<void> {
    if (paths.length) await this.guarded((c) => c.query('DELETE FROM documents WHERE source_id = $1 AND path = ANY ($2::text[])', [this.sourceId, paths]));
  }

  async restamp(stamps: DocumentStamp[]): Promise<void> {
    await this.guarded((c) =>
      c.query('UPDATE documents d SET stamp = t.stamp FROM unnest($2::text[], $3::text[]) AS t(path, stamp) WHERE d.source_id = $1 AND d.path = t.path', [
        this.sourceId,
        stamps.map((s) => s.path),
        stamps.map((s) => s.stamp),
      ]),
    );
  }

  async write(docs: DocumentRecord[]): Promise<void> {
    await this.guarded(async (c) => {
      // A worker that lost the source's lease stops before this batch.
      await fence(this.db, c, this.source, false);
      if (docs.length) await writeBatch(c, this.sourceId, this.at, docs);
    });
  }

  async commit(): Promise<void> {
    this.db.assertLockHeld();
    await this.guarded(async (c) => {
      await fence(this.db, c, this.source);
      await bumpGeneration(c);
    });
    await this.t.commit();
  }

  async rollback(): Promise<void> {
    await this.t.rollback();
  }

  /** Runs `fn` in the write's transaction; a failure rolls the whole write back before it is rethrown. */
  private async guarded(fn: (c: Queryable) => Promise<unknown>): Promise<void> {
    try {
      await fn(this.t.q);
    } catch (err) {
      await this.t.rollback(err);
      throw err;
    }
  }
}

/**
 * A batch of documents in a fixed number of statements, whatever its size: each table's rows go in
 * as column arrays unnested, one round trip per table, so the statement triggers (chunk counts,
 * postings) fire once per batch instead of once per document.
 */
async function writeBatch(c: Queryable, sourceId: number, at: string, batch: DocumentRecord[]): Promise<void> {
  // A path twice in one batch: the later record wins, as when each was written in turn.
  const byPath = new Map<string, DocumentRecord>();
  for (const d of batch) {
    byPath.delete(d.path);
    byPath.set(d.path, d);
  }
  const docs = [...byPath.values()];
  const paths = docs.map((d) => d.path);
  // Documents written before keep their id: their old chunks (postings go with them, by trigger)
  // and lexicon rows go first.
  const old = await c.query<{ id: number }>('SELECT id FROM documents WHERE source_id = $1 AND path = ANY ($2::text[])', [sourceId, paths]);
  if (old.rowCount) {
    const ids = old.rows.map((r) => r.id);
    await c.query('DELETE FROM chunks WHERE document_id = ANY ($1::bigint[])', [ids]);
    await c.query('DELETE FROM lexicon_docs WHERE document_id = ANY ($1::bigint[])', [ids]);
  }
  const written = await c.query<{ id: number; path: string }>(
    `INSERT INTO documents (source_id, path, content_hash, stamp, size, title, metadata, chunker, indexed_at, media_type)
     SELECT $1, path, hash, stamp, size, title, metadata, chunker, $9, media
     FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::jsonb[], $8::text[], $10::text[])
       AS t(path, hash, stamp, size, title, metadata, chunker, media)
     ON CONFLICT (source_id, path) DO UPDATE SET content_hash = excluded.content_hash, stamp = excluded.stamp,
       size = excluded.size, title = excluded.title, metadata = excluded.metadata, chunker = excluded.chunker,
       indexed_at = excluded.indexed_at, media_type = excluded.media_type
     RETURNING id, path`,
    [
      sourceId,
      paths,
      docs.map((d) => d.contentHash),
      docs.map((d) => d.stamp),
      docs.map((d) => d.size),
      docs.map((d) => d.title),
      docs.map((d) => JSON.stringify(d.metadata)),
      docs.map((d) => d.chunker),
      at,
      docs.map((d) => d.mediaType ?? null),
    ],
  );
  const idOf = new Map(written.rows.map((r) => [r.path, r.id]));
  for (let i = 0; i < docs.length; i++) failpoint('in-documents');
  await insertLexicon(c, docs, idOf);
  await insertChunks(c, docs, idOf);
}

/** The batch's lexicon: each document's headwords, then every headword's df and new glosses, one statement each. */
async function insertLexicon(c: Queryable, docs: DocumentRecord[], idOf: Map<string, number>): Promise<void> {
  const added = new Map<string, { n: number; entry: LexiconEntry }>();
  const withLexicon = docs.filter((d) => d.lexicon?.length);
  if (!withLexicon.length) return;
  await c.query(
    `INSERT INTO lexicon_docs (document_id, headwords)
     SELECT d, ARRAY(SELECT jsonb_array_elements_text(h)) FROM unnest($1::bigint[], $2::jsonb[]) AS t(d, h)`,
    [withLexicon.map((d) => idOf.get(d.path)!), withLexicon.map((d) => JSON.stringify(d.lexicon!.map((e) => e.headword)))],
  );
  for (const d of withLexicon) {
    for (const e of d.lexicon!) {
      const a = added.get(e.headword);
      if (a) a.n++;
      else added.set(e.headword, { n: 1, entry: e });
    }
  }
  const dfs = await c.query<{ headword: string; df: number }>(
    `INSERT INTO lexicon_terms (headword, df) SELECT * FROM unnest($1::text[], $2::int[])
     ON CONFLICT (headword) DO UPDATE SET df = lexicon_terms.df + excluded.df RETURNING headword, df`,
    [[...added.keys()], [...added.values()].map((a) => a.n)],
  );
  // Glosses go in when the headword enters the lexicon: its df is what this batch added.
  const gloss: string[] = [];
  const headword: string[] = [];
  const sense: number[] = [];
  for (const { headword: h, df } of dfs.rows) {
    const { n, entry } = added.get(h)!;
    if (df !== n) continue;
    for (const [g, s] of entry.glosses) (gloss.push(g), headword.push(h), sense.push(s));
  }
  if (gloss.length) {
    await c.query(
      `INSERT INTO lexicon_glosses (gloss, headword, sense) SELECT * FROM unnest($1::text[], $2::text[], $3::int[])
       ON CONFLICT DO NOTHING`,
      [gloss, headword, sense],
    );
  }
}

/** The batch's chunks in one statement, then their postings in one (column arrays unnested). */
async function insertChunks(c: Queryable, docs: DocumentRecord[], idOf: Map<string, number>): Promise<void> {
  const cols = {
    document: [] as number[],
    ordinal: [] as number[],
    key: [] as string[],
    heading: [] as string[],
    content: [] as string[],
    text: [] as string[],
    hash: [] as string[],
    tokens: [] as number[],
    metadata: [] as string[],
    terms: [] as string[],
    head: [] as string[],
    headLen: [] as number[],
    bodyLen: [] as number[],
    startLine: [] as (number | null)[],
    endLine: [] as (number | null)[],
  };
  const keywords: ChunkKeywords[] = [];
  for (const d of docs) {
    const documentId = idOf.get(d.path)!;
    for (const ch of d.chunks) {
      const kw = chunkKeywords(ch.headTerms, ch.terms);
      keywords.push(kw);
      cols.document.push(documentId);
      cols.ordinal.push(ch.ordinal);
      cols.key.push(ch.key);
      cols.heading.push(ch.heading);
      cols.content.push(ch.content);
      cols.text.push(ch.text);
      cols.hash.push(ch.textHash);
      cols.tokens.push(ch.tokens);
      cols.metadata.push(JSON.stringify(ch.metadata));
      cols.terms.push(ch.terms);
      cols.head.push(kw.head);
      cols.headLen.push(kw.headLen);
      cols.bodyLen.push(kw.bodyLen);
      cols.startLine.push(ch.startLine ?? null);
      cols.endLine.push(ch.endLine ?? null);
    }
  }
  if (!keywords.length) return;
  const ids = await c.query<{ id: number; document_id: number; ordinal: number }>(
    `INSERT INTO chunks (document_id, ordinal, key, heading, content, text, text_hash, tokens, metadata, terms, head, head_len, body_len, start_line, end_line)
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::jsonb[],
       $10::text[], $11::tsvector[], $12::int[], $13::int[], $14::int[], $15::int[])
     RETURNING id, document_id, ordinal`,
    [cols.document, cols.ordinal, cols.key, cols.heading, cols.content, cols.text, cols.hash, cols.tokens, cols.metadata, cols.terms, cols.head, cols.headLen, cols.bodyLen, cols.startLine, cols.endLine],
  );
  const idAt = new Map(ids.rows.map((r) => [`${r.document_id}:${r.ordinal}`, r.id]));
  const chunkIds = cols.document.map((d, i) => idAt.get(`${d}:${cols.ordinal[i]}`)!);
  await insertPostings(c, keywords, chunkIds);
}

/**
 * The chunks' postings in one statement, in (term, chunk) order: the rows then reach the primary
 * key's pages one leaf after another instead of one random leaf each (a CJK chunk holds hundreds of
 * terms; a full index, millions of rows — the bulk of a Postgres write). Grouped by term, then the
 * distinct terms sorted: far cheaper than sorting every row. The columns go as array literals
 * built here (node-pg would quote every number and escape element by element).
 */
async function insertPostings(c: Queryable, keywords: ChunkKeywords[], chunkIds: number[]): Promise<void> {
  const rowsOf = new Map<string, number[]>();
  const chunk: number[] = [];
  const head: number[] = [];
  const body: number[] = [];
  const len: number[] = [];
  keywords.forEach((kw, i) => {
    const n = kw.headLen + kw.bodyLen;
    for (const [t, tf] of kw.postings) {
      const rows = rowsOf.get(t);
      if (rows) rows.push(chunk.length);
      else rowsOf.set(t, [chunk.length]);
      chunk.push(chunkIds[i]!);
      head.push(tf.head);
      body.push(tf.body);
      len.push(n);
    }
  });
  if (!chunk.length) return;
  const term: string[] = [];
  const order: number[] = [];
  for (const t of [...rowsOf.keys()].sort()) {
    for (const r of rowsOf.get(t)!) (term.push(t), order.push(r));
  }
  const ints = (xs: number[]) => `{${order.map((r) => xs[r]).join(',')}}`;
  await c.query(
    `INSERT INTO postings (term, chunk_id, head_tf, body_tf, len) SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $5::int[])`,
    [textArrayLiteral(term), ints(chunk), ints(head), ints(body), ints(len)],
  );
}

/** A text[] literal: every element quoted, its quotes and backslashes escaped. */
export const textArrayLiteral = (xs: readonly string[]) => `{${xs.map((x) => `"${x.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
