// `ragsync export` for outside analysis: JSON lines, CSV and Parquet with the same columns, read
// back with independent readers (csv-parse, hyparquet). Vectors come out as float32 lists equal,
// value for value, to the stored BLOBs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { loadConfig } from '../../src/builtin.ts';
import { main } from '../../src/cli/main.ts';
import { float32Text } from '../../src/cli/export-writers.ts';
import { decodeVector } from '../../src/storage/sqlite/blob.ts';

import { runCli } from '../helpers/cli.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { runIndex } from '../../src/engine/library.ts';

const FP = 'hash:cjk-ngram@1:64';
let t: ReturnType<typeof tempDir>;
let cfgFile: string;
let db: string;
/** What the database holds: chunk key → row fields and its vector. */
let stored: Map<string, { source: string; path: string; heading: string; content: string; metadata: string; textHash: string; vector: Float32Array }>;

function config(dims: number): string {
  const file = join(t.dir, `ragsync-${dims}.json`);
  const example = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'example.json'), 'utf8')) as { sources: { path: string }[] };
  writeFileSync(
    file,
    JSON.stringify({ ...example, db, embedder: { provider: 'hash', dims }, sources: example.sources.map((s) => ({ ...s, path: join(REPO_ROOT, 'config', s.path) })) }),
  );
  return file;
}

beforeAll(async () => {
  t = tempDir('ragsync-export-');
  db = join(t.dir, 'index.db');
  cfgFile = config(64);
  expect((await runIndex(loadConfig(cfgFile))).status).toBe('ok');
  const c = new BetterSqlite3(db, { readonly: true });
  const rows = c
    .prepare(
      `SELECT c.key, s.name AS source, d.path, c.heading, c.content, c.metadata, d.media_type AS mediaType, c.text_hash AS textHash, v.embedding
       FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
       JOIN vectors v ON v.text_hash = c.text_hash AND v.fingerprint = ?`,
    )
    .all(FP) as { key: string; embedding: Buffer; source: string; path: string; heading: string; content: string; metadata: string; mediaType: string; textHash: string }[];
  c.close();
  // Export's metadata: the document's media type, then the chunk's own.
  const exported = (mediaType: string, metadata: string) => JSON.stringify({ mediaType, ...(JSON.parse(metadata) as object) });
  stored = new Map(rows.map(({ key, embedding, mediaType, ...r }) => [key, { ...r, metadata: exported(mediaType, r.metadata), vector: decodeVector(embedding) }]));
  expect(stored.size).toBeGreaterThan(10);
  // The sample has passages with newlines, commas and quotes: the CSV must carry them intact.
  expect([...stored.values()].some((r) => r.content.includes('\n'))).toBe(true);
});
afterAll(() => t?.cleanup());

async function exportTo(...args: string[]): Promise<number> {
  return main(['export', '-c', cfgFile, ...args]);
}

describe('ragsync export', () => {
  it('csv --vectors round-trips through a CSV parser: every column, float32 vectors equal to the stored BLOBs', async () => {
    const out = join(t.dir, 'chunks.csv');
    expect(await exportTo('--format', 'csv', '--vectors', '--out', out)).toBe(0);
    const records = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual(['id', 'source', 'path', 'heading', 'content', 'metadata', 'textHash', 'vector']);
    expect(records).toHaveLength(stored.size);
    for (const r of records) {
      const s = stored.get(r.id!)!;
      expect({ source: r.source, path: r.path, heading: r.heading, content: r.content, textHash: r.textHash }).toEqual({
        source: s.source,
        path: s.path,
        heading: s.heading,
        content: s.content,
        textHash: s.textHash,
      });
      expect(JSON.parse(r.metadata!)).toEqual(JSON.parse(s.metadata));
      expect(Float32Array.from(JSON.parse(r.vector!) as number[])).toEqual(s.vector);
    }
  });

  it('parquet --vectors round-trips through hyparquet: a LIST of FLOAT per chunk, the fingerprint in the metadata', async () => {
    const out = join(t.dir, 'chunks.parquet');
    expect(await exportTo('--format', 'parquet', '--vectors', '--out', out)).toBe(0);
    const bytes = readFileSync(out);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const meta = parquetMetadata(file);
    expect(meta.key_value_metadata).toContainEqual({ key: 'ragsync.fingerprint', value: FP });
    const vectorColumn = parquetSchema(meta).children.find((c) => c.element.name === 'vector')!;
    expect(vectorColumn.element.converted_type).toBe('LIST');
    expect(vectorColumn.children[0]!.children[0]!.element.type).toBe('FLOAT');
    const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
    expect(rows).toHaveLength(stored.size);
    for (const r of rows) {
      const s = stored.get(r.id as string)!;
      expect(r).toMatchObject({ source: s.source, path: s.path, heading: s.heading, content: s.content, textHash: s.textHash });
      expect(JSON.parse(r.metadata as string)).toEqual(JSON.parse(s.metadata));
      expect(Float32Array.from(r.vector as number[])).toEqual(s.vector);
    }
  });

  it('parquet without vectors has the base columns only; parquet needs --out', async () => {
    const out = join(t.dir, 'plain.parquet');
    expect(await exportTo('--format', 'parquet', '--out', out)).toBe(0);
    const bytes = readFileSync(out);
    const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Record<string, unknown>[];
    expect(rows).toHaveLength(stored.size);
    expect(Object.keys(rows[0]!).sort()).toEqual(['content', 'heading', 'id', 'metadata', 'path', 'source', 'textHash']);
    const r = await runCli(['export', '-c', cfgFile, '--format', 'parquet']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ragsync: --format parquet writes a file: pass --out FILE');
  });

  it('jsonl (the default, on stdout) adds the vector as a float32 list; texts without a vector under the embedder get null', async () => {
    const r = await runCli(['export', '-c', cfgFile, '--vectors']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; vector: number[] });
    expect(lines).toHaveLength(stored.size);
    for (const l of lines) expect(Float32Array.from(l.vector)).toEqual(stored.get(l.id)!.vector);
    // Another embedder (32 dims) has embedded nothing in this index yet.
    const other = join(t.dir, 'other.jsonl');
    expect(await main(['export', '-c', config(32), '--vectors', '--out', other])).toBe(0);
    const rows = readFileSync(other, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { vector: unknown });
    expect(rows.every((x) => x.vector === null)).toBe(true);
  });

  it('float32Text: the shortest decimal that reads back as the same float32', () => {
    for (const x of [0.1, -2.5e-8, 1 / 3, 123456.789, 3.4028234663852886e38, 1.401298464324817e-45, 0]) {
      const f = Math.fround(x);
      const s = float32Text(f);
      expect(Math.fround(Number(s))).toBe(f);
      expect(s.replace(/^-|e.*$|\./g, '').length).toBeLessThanOrEqual(9);
    }
    expect(float32Text(Math.fround(0.1))).toBe('0.1');
  });
});
