/**
 * Chunk facts (id, source, text hash, broken flag) read with and without the covering index
 * `chunks_facts` (migration 012), on a copy of a real index: every chunk's facts (what a
 * long-lived reader or concept scoring builds) and one chunk's by id (what a one-shot filter asks).
 * Fresh connections, alternating, medians.
 *
 *   npx tsx bench/chunk-facts.bench.ts INDEX.db [--turns 10]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { FACTS_OF_ALL_SQL, FACTS_OF_ID_SQL } from '../src/storage/sqlite/facts.ts';

const [src] = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!src) throw new Error('usage: chunk-facts.bench.ts INDEX.db [--turns N]');
const turns = Number(process.argv[process.argv.indexOf('--turns') + 1]) || 10;
const dir = mkdtempSync(join(tmpdir(), 'ragsync-facts-'));
const withIx = join(dir, 'with.db');
const without = join(dir, 'without.db');
for (const f of [withIx, without]) copyFileSync(src, f);
const w = new BetterSqlite3(without);
w.exec('DROP INDEX chunks_facts');
w.close();

const plain = (sql: string) => sql.replace('INDEXED BY chunks_facts ', '');
const times = { without: { all: [] as number[], one: [] as number[] }, with: { all: [] as number[], one: [] as number[] } };
let ids: number[] = [];
for (let t = 0; t < turns; t++) {
  for (const [k, file, q] of [['without', without, plain], ['with', withIx, (s: string) => s]] as const) {
    const db = new BetterSqlite3(file, { readonly: true });
    let t0 = performance.now();
    const rows = db.prepare(q(FACTS_OF_ALL_SQL)).raw().all() as [number][];
    times[k].all.push(performance.now() - t0);
    if (!ids.length) ids = rows.filter((_, i) => i % 2 === 0).map((r) => r[0]);
    const one = db.prepare(q(FACTS_OF_ID_SQL)).raw();
    t0 = performance.now();
    for (const id of ids) one.get(id);
    times[k].one.push(((performance.now() - t0) / ids.length) * 1000);
    db.close();
  }
}
rmSync(dir, { recursive: true, force: true });
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
console.log(`${ids.length * 2} chunks, ${turns} turns, fresh connections, medians`);
console.log('| query | without the index | with it | ratio |\n|---|---:|---:|---:|');
console.log(`| every chunk's facts | ${med(times.without.all).toFixed(1)} ms | ${med(times.with.all).toFixed(1)} ms | ${(med(times.without.all) / med(times.with.all)).toFixed(2)}× |`);
console.log(`| one chunk's facts by id | ${med(times.without.one).toFixed(1)} µs | ${med(times.with.one).toFixed(1)} µs | ${(med(times.without.one) / med(times.with.one)).toFixed(2)}× |`);
