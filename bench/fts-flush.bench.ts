/**
 * What flushing FTS5's pending terms during a document write costs: the keyword rows of an
 * existing index written again into a fresh FTS5 table (two transactions, as a run of two sources)
 * with no flushes, and with a flush every 256K / 1M characters of token text (the writer's
 * FTS_FLUSH_CHARS); then the run's end-of-run merge (compactKeywordIndex). CPU ms, interleaved.
 *
 *   npx tsx bench/fts-flush.bench.ts --db path/to/index.db [--rounds 2]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactKeywordIndex, keywordSegments } from '../src/storage/sqlite/keyword-segments.ts';
import { takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const from = takeOption(args, '--db', '');
const rounds = Number(takeOption(args, '--rounds', '2'));
if (!from) throw new Error('--db <an index> is required');
const src = new Database(from, { readonly: true });
const rows = src.prepare('SELECT rowid, head, body FROM chunks_fts ORDER BY rowid').raw().all() as [number, string, string][];
src.close();
console.log(`${rows.length} keyword rows, ${rows.reduce((a, r) => a + r[1].length + r[2].length, 0)} chars of token text`);
const work = mkdtempSync(join(tmpdir(), 'ragsync-fts-flush-'));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function run(flushEvery: number) {
  const file = join(work, `fts-${flushEvery}.db`);
  for (const x of ['', '-wal', '-shm']) rmSync(file + x, { force: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec("CREATE VIRTUAL TABLE chunks_fts USING fts5(head, body, tokenize = 'unicode61 remove_diacritics 0')");
  const insert = db.prepare('INSERT INTO chunks_fts (rowid, head, body) VALUES (?, ?, ?)');
  const flush = db.prepare("INSERT INTO chunks_fts (chunks_fts) VALUES ('flush')");
  const c0 = cpu();
  for (const part of [rows.slice(0, rows.length >> 1), rows.slice(rows.length >> 1)]) {
    db.exec('BEGIN IMMEDIATE');
    let pending = 0;
    for (const [id, head, body] of part) {
      insert.run(id, head, body);
      pending += head.length + body.length;
      if (pending >= flushEvery) (flush.run(), (pending = 0));
    }
    if (flushEvery < Infinity) flush.run();
    db.exec('COMMIT');
  }
  const c1 = cpu();
  const segments = keywordSegments(db);
  await compactKeywordIndex(db, undefined, async () => {});
  const c2 = cpu();
  db.close();
  return { write: c1 - c0, merge: c2 - c1, segments };
}

for (let r = 0; r < rounds; r++) {
  for (const n of [Infinity, 256 * 1024, 1024 * 1024]) {
    const x = await run(n);
    console.log(`round ${r + 1}, flush every ${n === Infinity ? '—' : `${n / 1024}K`} chars: write ${x.write.toFixed(0)} ms, merge ${x.merge.toFixed(0)} ms, total ${(x.write + x.merge).toFixed(0)} ms CPU (${x.segments} segments before the merge)`);
  }
}
rmSync(work, { recursive: true, force: true });
