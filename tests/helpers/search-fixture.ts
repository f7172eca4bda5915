import { headText } from '../../src/sync/plan.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import type { ChunkRecord, DocumentRecord } from '../../src/core/types.ts';
import { defaultAnalyzer, indexTerms, type Analyzer } from '../../src/core/text/analyzer.ts';
import { builtinProfiles } from '../../src/builtin.ts';
import { sha256 } from '../../src/core/hash.ts';
import { estimateTokens } from '../../src/core/text/tokens.ts';

/** A fixture document: chunks are [heading, content, metadata?]. */
export interface FixtureDoc {
  path: string;
  title?: string;
  metadata?: Record<string, unknown>;
  chunks: [string, string, Record<string, unknown>?][];
}

/** A fixture document as the sync layer would write it; keyword terms by `analyzer`. */
export function record(d: FixtureDoc, analyzer: Analyzer = defaultAnalyzer): DocumentRecord {
  const content = d.chunks.map((c) => c[1]).join('\n');
  const chunks: ChunkRecord[] = d.chunks.map(([heading, body, metadata], ordinal) => {
    const text = `${heading}\n${body}`;
    return {
      ordinal,
      key: `${d.path}#${ordinal}`,
      heading,
      content: body,
      text,
      textHash: sha256(text),
      tokens: estimateTokens(text),
      terms: indexTerms(analyzer, text),
      headTerms: indexTerms(analyzer, headText({ heading, metadata: metadata ?? {} })),
      metadata: metadata ?? {},
    };
  });
  return {
    path: d.path,
    contentHash: sha256(content),
    stamp: sha256(content).slice(0, 12),
    size: Buffer.byteLength(content),
    chunker: 'fixture@1',
    title: d.title ?? null,
    metadata: d.metadata ?? {},
    chunks,
  };
}

/** Writes documents and their hash-embedder vectors straight through the Store. */
/** The fixture sources are named after the profile whose analysis they use. */
const analyzerOf = (source: string) => (builtinProfiles.has(source) ? builtinProfiles.get(source).analyzer : undefined) ?? defaultAnalyzer;

export async function writeFixture(store: SqliteIndex, source: string, docs: FixtureDoc[], dims = 256): Promise<void> {
  const embedder = new HashEmbedder(dims);
  await store.ensureSource({ name: source, kind: 'dir', url: null, branch: null });
  await store.registerEmbedder(embedder.info);
  const recs = docs.map((d) => record(d, analyzerOf(source)));
  const chunks = recs.flatMap((r) => r.chunks);
  const vectors = await embedder.embed(chunks.map((c) => c.text));
  await store.putVectors(embedder.info.fingerprint, chunks.map((c, i) => ({ textHash: c.textHash, vector: vectors[i]! })));
  await store.writeDocuments(source, recs);
}

export const CLASSICS: FixtureDoc[] = [
  {
    path: 'qiongtong/jiamu.md',
    title: '穷通宝鉴',
    metadata: { book: 'qiongtong' },
    chunks: [
      ['论甲木', '正月甲木，初春尚有余寒，得丙火温暖方能发荣，癸水滋润次之。寅月用神先丙后癸。', { book: 'qiongtong', bookTitle: '穷通宝鉴', chapter: '论甲木·正月' }],
      ['论甲木', '二月甲木，阳刃架杀，先用庚金，次取戊己。', { book: 'qiongtong', bookTitle: '穷通宝鉴', chapter: '论甲木·二月' }],
    ],
  },
  {
    path: 'ziping/shishen.md',
    title: '子平真诠',
    metadata: { book: 'ziping' },
    chunks: [
      ['论伤官', '伤官虽非吉神，实为秀气。伤官配印，贵不可言；伤官生财，亦主富。', { book: 'ziping', bookTitle: '子平真诠', chapter: '论伤官' }],
      ['论印绶', '印绶喜官星生之，忌财星破之。', { book: 'ziping', bookTitle: '子平真诠', chapter: '论印绶' }],
    ],
  },
  {
    // A reprint of the 伤官 passage in another book: collapsed as a near-duplicate.
    path: 'sanming/juan1.md',
    title: '三命通会',
    metadata: { book: 'sanming' },
    chunks: [
      ['卷一', '伤官虽非吉神，实为秀气。伤官配印，贵不可言；伤官生财，亦主富。', { book: 'sanming', bookTitle: '三命通会', chapter: '卷一' }],
      ['卷一', '天乙贵人，甲戊庚牛羊，乙己鼠猴乡。', { book: 'sanming', bookTitle: '三命通会', chapter: '论天乙贵人' }],
    ],
  },
  {
    path: 'ditian/tongshen.md',
    title: '滴天髓',
    metadata: { book: 'ditian' },
    chunks: [['通神论', '甲木参天，脱胎要火。春不容金，秋不容土。', { book: 'ditian', bookTitle: '滴天髓阐微', chapter: '天干论' }]],
  },
];

export const BOOKMARKS: FixtureDoc[] = [
  {
    path: '202401/2024-01-05-sqlite.md',
    title: 'SQLite Is Enough',
    metadata: { url: 'https://example.com/sqlite', tags: ['database', 'sqlite'], added_at: '2024-01-05T09:12:00Z', month: '202401' },
    chunks: [['SQLite Is Enough › TL;DR', 'SQLite handles most small services; WAL mode gives concurrent readers.']],
  },
  {
    path: '202401/2024-01-18-retries.md',
    title: 'Retries with Jitter',
    metadata: { url: 'https://example.com/retries', tags: ['distributed'], added_at: '2024-01-18T10:00:00Z', month: '202401' },
    chunks: [['Retries with Jitter › TL;DR', 'Exponential backoff with jitter avoids thundering herds in distributed systems.']],
  },
  {
    path: '202403/2024-03-02-postgres.md',
    title: 'Postgres Full Text Search',
    metadata: { url: 'https://example.com/pgfts', tags: ['database', 'search'], added_at: '2024-03-02T08:00:00Z', month: '202403' },
    chunks: [['Postgres Full Text Search › TL;DR', 'Postgres or SQLite for small services? tsvector and GIN indexes give full text search; SQLite has FTS5 and WAL mode.']],
  },
  {
    path: '202403/2024-03-09-broken.md',
    title: 'Broken summary',
    metadata: { url: 'https://example.com/broken', tags: ['database'], added_at: '2024-03-09T08:00:00Z', broken: true },
    chunks: [['Broken › TL;DR', 'I cannot summarise this SQLite article. </think>']],
  },
];

export interface Fixture {
  dir: string;
  db: string;
  configFile: string;
  cleanup(): void;
}

/** A temp dir with an index of both fixture sources and a config file pointing at it. */
export async function makeFixture(dims = 256): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ragsync-search-'));
  const db = join(dir, 'index.db');
  const store = new SqliteIndex(db);
  await writeFixture(store, 'classics', CLASSICS, dims);
  await writeFixture(store, 'bookmarks', BOOKMARKS, dims);
  await store.close();
  const configFile = join(dir, 'ragsync.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      db,
      embedder: { provider: 'hash', dims },
      sources: [
        { name: 'classics', kind: 'dir', path: join(dir, 'classics'), profile: 'classics' },
        { name: 'bookmarks', kind: 'dir', path: join(dir, 'bookmarks'), profile: 'bookmarks' },
      ],
    }),
  );
  return { dir, db, configFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
