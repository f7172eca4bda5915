/**
 * Offline retrieval by meaning, piece by piece: each piece of query analysis is added on top of the
 * previous ones and every eval set is scored per kind (hit@1/3/10, MRR@10), with the offline hash
 * embedder, so each row's change is that piece's.
 *
 *   RAGSYNC_CORPORA=/work/shared/corpora npx tsx bench/query-analysis.bench.ts [--heldout] [--modes hybrid,keyword] [--json OUT]
 *
 * Pieces (each a switch): stemming (RAGSYNC_STEM, needs its own index), field weights
 * (RAGSYNC_HEAD_WEIGHT), the classics thesaurus and English glossary (RAGSYNC_CLASSICS_THESAURUS /
 * _GLOSSARY, through the query-expansion mechanism: `expand`), the corpus lexicon. (Pseudo-relevance
 * feedback was measured here too and removed: docs/benchmarks/query-analysis.md.) `--work DIR` keeps the indexes between runs. `--heldout` adds eval/heldout/* (judge on it once, at the end; tune on dev).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile, runEval, type EvalCase, type Metrics } from '../src/search/eval.ts';
import { Searcher, type SearchMode } from '../src/search/search.ts';

import { CORPORA } from '../tests/helpers/tmp.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
if (!existsSync(join(CORPORA, 'classics.bundle'))) throw new Error(`no bundles in ${CORPORA} (set RAGSYNC_CORPORA)`);
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const jsonOut = arg('--json');
const modes = (arg('--modes') ?? 'hybrid,keyword').split(',') as SearchMode[];
const heldout = process.argv.includes('--heldout');

const SETS = [
  'eval/classics.jsonl',
  'eval/bookmarks.jsonl',
  'bench/eval/classics-search.jsonl',
  'bench/eval/bookmarks-search.jsonl',
  'eval/dev/classics-zh.jsonl',
  'eval/dev/classics-en.jsonl',
  'eval/dev/bookmarks-en.jsonl',
  ...(heldout ? ['eval/heldout/classics-zh.jsonl', 'eval/heldout/classics-en.jsonl', 'eval/heldout/bookmarks-en.jsonl'] : []),
];

interface Variant {
  name: string;
  stem: boolean;
  env: Record<string, string>;
  expand: boolean;
  /** The corpus lexicon of issue 16 (English → Chinese from CC-CEDICT), switched per source at query time. */
  lexicon: boolean;
}
const OFF = { RAGSYNC_HEAD_WEIGHT: '0', RAGSYNC_CLASSICS_THESAURUS: '0', RAGSYNC_CLASSICS_GLOSSARY: '0' };
const ON = { RAGSYNC_HEAD_WEIGHT: '', RAGSYNC_CLASSICS_THESAURUS: '1', RAGSYNC_CLASSICS_GLOSSARY: '1' };
const VARIANTS: Variant[] = [
  { name: 'baseline', stem: false, env: OFF, expand: false, lexicon: false },
  { name: '+stemming', stem: true, env: OFF, expand: false, lexicon: false },
  { name: '+field weights', stem: true, env: { ...OFF, RAGSYNC_HEAD_WEIGHT: '' }, expand: false, lexicon: false },
  { name: '+thesaurus', stem: true, env: { ...OFF, RAGSYNC_HEAD_WEIGHT: '', RAGSYNC_CLASSICS_THESAURUS: '1' }, expand: true, lexicon: false },
  { name: '+glossary', stem: true, env: ON, expand: true, lexicon: false },
  { name: '+lexicon (16)', stem: true, env: ON, expand: true, lexicon: true },
];
const only = arg('--variants')?.split(',');

// --work DIR keeps the indexes for the next run (an unchanged index costs one no-op run).
const keep = arg('--work');
const work = keep ?? mkdtempSync(join(tmpdir(), 'ragsync-query-analysis-'));
for (const name of ['classics', 'bookmarks']) {
  if (existsSync(join(work, `${name}.git`))) continue;
  execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };

function setEnv(env: Record<string, string>): void {
  for (const [k, v] of Object.entries(env)) {
    if (v === '') delete process.env[k];
    else process.env[k] = v;
  }
}

const searchers = new Map<boolean, Searcher>();
async function searcherFor(stem: boolean): Promise<Searcher> {
  let s = searchers.get(stem);
  if (s) return s;
  process.env.RAGSYNC_STEM = stem ? '1' : '0';
  const cfgFile = join(work, `stem-${stem}.json`);
  writeFileSync(
    cfgFile,
    JSON.stringify({ ...base, db: `stem-${stem}.db`, checkouts: 'checkouts', sources: base.sources.map((x) => ({ ...x, url: `${x.name}.git` })) }),
  );
  const config = loadConfig(cfgFile);
  const r = await runIndex(config);
  if (r.status !== 'ok') throw new Error(`index (stem ${stem}): ${r.status}`);
  s = openSearcher(config);
  searchers.set(stem, s);
  return s;
}

const sets = new Map<string, EvalCase[]>(SETS.map((s) => [s, readEvalFile(join(root, s))]));
type Row = { variant: string; set: string; mode: string; kind: string; m: Metrics };
const rows: Row[] = [];
const t0 = Date.now();
for (const v of VARIANTS.filter((x) => !only || only.includes(x.name))) {
  const searcher = await searcherFor(v.stem);
  process.env.RAGSYNC_STEM = v.stem ? '1' : '0';
  setEnv(v.env);
  for (const s of searcher.scope.sources) (s as { lexicon?: boolean }).lexicon = v.lexicon;
  for (const [set, cases] of sets) {
    for (const mode of modes) {
      const r = await runEval(searcher, cases, { mode, expand: v.expand });
      for (const [kind, m] of Object.entries(r.byKind)) rows.push({ variant: v.name, set, mode, kind, m });
    }
  }
}
for (const s of searchers.values()) await s.close();

const f = (x: number) => x.toFixed(3);
console.log(`load: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}; ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log('| set | kind | mode | variant | hit@1 | hit@3 | hit@10 | MRR@10 |');
console.log('|---|---|---|---|---:|---:|---:|---:|');
const order = (r: Row) => `${SETS.indexOf(r.set).toString().padStart(2)}\t${r.kind}\t${r.mode}`;
for (const r of [...rows].sort((a, b) => order(a).localeCompare(order(b)))) {
  console.log(`| ${r.set} | ${r.kind} (${r.m.queries}) | ${r.mode} | ${r.variant} | ${f(r.m.hit1)} | ${f(r.m.hit3)} | ${f(r.m.hit10)} | ${f(r.m.mrr10)} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 1));
if (!keep) rmSync(work, { recursive: true, force: true });
