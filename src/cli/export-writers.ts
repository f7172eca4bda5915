import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportRow } from '../storage/roles.ts';

/**
 * `ragsync export` formats. Every format has the same columns: id, source, path, heading, content,
 * metadata (JSON), textHash, and with --vectors `vector`: the text's float32 values under the
 * active embedder (empty when it has none). Writers are maintained libraries (csv-stringify,
 * hyparquet-writer), loaded only by the format that needs them.
 */
export const EXPORT_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportTarget {
  format: ExportFormat;
  /** A file, or null for stdout (not for parquet). */
  out: string | null;
  vectors: boolean;
  /** The embedder whose vectors are exported (into the Parquet file's key-value metadata). */
  fingerprint: string | null;
}

const BASE_COLUMNS = ['id', 'source', 'path', 'heading', 'content', 'metadata', 'textHash'] as const;

/**
 * The shortest decimal that reads back as the same float32 (0.1f prints as 0.1, not as the double
 * 0.10000000149011612): the list stays a list of float32 values for every reader.
 */
export function float32Text(x: number): string {
  for (let p = 6; p < 9; p++) {
    const s = Number(x.toPrecision(p));
    if (Math.fround(s) === x) return String(s);
  }
  return String(Number(x.toPrecision(9)));
}

const vectorJson = (v: Float32Array) => `[${Array.from(v, float32Text).join(',')}]`;

/** Writes every row to the target; resolves with the number of rows. */
export async function writeExport(rows: AsyncIterable<ExportRow>, t: ExportTarget): Promise<number> {
  let n = 0;
  const counted = async function* () {
    for await (const r of rows) {
      n++;
      yield r;
    }
  };
  if (t.format === 'parquet') {
    await writeParquet(counted(), t);
    return n;
  }
  const lines = t.format === 'csv' ? await csvLines(counted(), t.vectors) : Readable.from(jsonLines(counted()));
  try {
    await pipeline(lines, sink(t.out));
  } catch (err) {
    // `ragsync export | head`: the reader has seen enough; that is not a failure.
    if (!t.out && (err as NodeJS.ErrnoException).code === 'EPIPE') return n;
    throw err;
  }
  return n;
}

function sink(out: string | null): Writable {
  return out ? createWriteStream(out) : process.stdout;
}

async function* jsonLines(rows: AsyncIterable<ExportRow>): AsyncGenerator<string> {
  for await (const { vector, ...r } of rows) {
    // Built by hand so the vector is written as float32 decimals inside ordinary JSON.
    const base = JSON.stringify(r);
    yield vector === undefined ? `${base}\n` : `${base.slice(0, -1)},"vector":${vector ? vectorJson(vector) : 'null'}}\n`;
  }
}

async function csvLines(rows: AsyncIterable<ExportRow>, vectors: boolean): Promise<Readable> {
  const { stringify } = await import('csv-stringify');
  const columns = [...BASE_COLUMNS, ...(vectors ? ['vector'] : [])];
  const records = Readable.from(
    (async function* () {
      for await (const r of rows) {
        yield [r.id, r.source, r.path, r.heading, r.content, JSON.stringify(r.metadata), r.textHash, ...(vectors ? [r.vector ? vectorJson(r.vector) : ''] : [])];
      }
    })(),
  );
  return records.pipe(stringify({ header: true, columns, bom: false }));
}

async function writeParquet(rows: AsyncIterable<ExportRow>, t: ExportTarget): Promise<void> {
  const { parquetWriteRows, fileWriter } = await import('hyparquet-writer');
  const utf8 = (name: string, required = true) => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: required ? 'REQUIRED' : 'OPTIONAL' });
  const schema = [
    { name: 'root', num_children: BASE_COLUMNS.length + (t.vectors ? 1 : 0) },
    utf8('id'),
    utf8('source'),
    utf8('path'),
    utf8('heading'),
    utf8('content'),
    { name: 'metadata', type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'REQUIRED' },
    utf8('textHash'),
    // The standard three-level LIST of FLOAT (float32), absent when the text has no vector.
    ...(t.vectors
      ? [
          { name: 'vector', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
          { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
          { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
        ]
      : []),
  ];
  const records = (async function* () {
    for await (const r of rows) {
      const { vector, metadata, ...rest } = r;
      yield { ...rest, metadata: JSON.stringify(metadata), ...(t.vectors ? { vector: vector ? Array.from(vector) : null } : {}) };
    }
  })();
  await parquetWriteRows({
    writer: fileWriter(t.out!),
    rows: records,
    columns: [...BASE_COLUMNS, ...(t.vectors ? ['vector'] : [])].map((name) => ({ name })),
    schema: schema as Parameters<typeof parquetWriteRows>[0]['schema'],
    // Row groups bound memory: a group of rows (with their vectors) is held at a time.
    rowGroupSize: t.vectors ? 2000 : 20000,
    kvMetadata: t.fingerprint ? [{ key: 'ragsync.fingerprint', value: t.fingerprint }] : [],
    createdBy: 'ragsync',
  });
}
