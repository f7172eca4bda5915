/**
 * What the corpus lexicon adds to a full index of both bundles' tips (offline hash embedder): the
 * same full index with every source's `lexicon` off and on, alternating, in one process, so the
 * ratio compares like with like under the same load. Also the lexicon's size in the index.
 *
 *   RAGSYNC_CORPORA=/work/shared/corpora npx tsx bench/lexicon-build.bench.ts [--rounds N]
 *
 * The first "on" index of a process also reads the dictionary (printed apart: a daemon pays it once).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/builtin.ts';

import { cedictLexicon } from '../src/sync/lexicon/cedict.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';
import { runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const rounds = Number(process.argv.includes('--rounds') ? process.argv[process.argv.indexOf('--rounds') + 1] : 3);
const work = mkdtempSync(join(tmpdir(), 'ragsync-lexicon-build-'));
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };

const t0 = performance.now();
cedictLexicon().load();
const loadMs = performance.now() - t0;

let n = 0;
async function fullIndex(lexicon: boolean): Promise<{ ms: number; db: string }> {
  const db = join(work, `i${n++}.db`);
  const cfgFile = join(work, 'bench.json');
  writeFileSync(
    cfgFile,
    JSON.stringify({
      ...base,
      db,
      checkouts: join(work, 'checkouts'),
      sources: base.sources.map((s) => ({ ...s, url: join(work, `${s.name}.git`), lexicon })),
    }),
  );
  const config = loadConfig(cfgFile);
  const t = performance.now();
  const r = await runIndex(config);
  if (r.status !== 'ok') throw new Error(`index: ${r.status}`);
  return { ms: performance.now() - t, db };
}

await fullIndex(false); // warm-up: clones the checkouts, JIT
const off: number[] = [];
const on: number[] = [];
let lastOn = '';
for (let i = 0; i < rounds; i++) {
  off.push((await fullIndex(false)).ms);
  const r = await fullIndex(true);
  on.push(r.ms);
  lastOn = r.db;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const db = new Database(lastOn, { readonly: true });
const count = (t: string) => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
const bytes = db.prepare(`SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'lexicon%'`).pluck().get() as number | null;
console.log(`dictionary read and keyed once per process: ${loadMs.toFixed(0)} ms`);
console.log(`full index, lexicon off: median ${(median(off) / 1000).toFixed(2)} s (${off.map((x) => (x / 1000).toFixed(2)).join(', ')})`);
console.log(`full index, lexicon on:  median ${(median(on) / 1000).toFixed(2)} s (${on.map((x) => (x / 1000).toFixed(2)).join(', ')})`);
console.log(`added by the lexicon: ${(((median(on) - median(off)) / median(off)) * 100).toFixed(1)} % (on / off = ${(median(on) / median(off)).toFixed(3)})`);
console.log(
  `lexicon in the index: ${count('lexicon_terms')} headwords, ${count('lexicon_glosses')} glosses, ${count('lexicon_docs')} document rows` +
    (bytes !== null ? `, ${(bytes / 1e6).toFixed(1)} MB of ${(statSync(lastOn).size / 1e6).toFixed(1)} MB` : ''),
);
db.close();
rmSync(work, { recursive: true, force: true });
