/**
 * The project's eval sets (eval/*.jsonl, eval/{dev,heldout}/*.jsonl, bench/eval/*.jsonl) over both
 * bundles' tips, scored the way `ragsync eval` scores them (hit@1/3/10, MRR@10), in vector, keyword
 * and hybrid mode.
 *
 *   npx tsx bench/eval-sets.bench.ts [--json OUT]
 *
 * Indexes the tips twice with the offline hash embedder (1024 dims): with the shipped config's
 * chunkers (`classics` / `bookmarks`) and with `markdown` for both. Hybrid mode runs twice: with
 * query expansion (the default) and without (`expand: false`). `--json` writes every figure,
 * so two branches can be compared line by line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile, runEval, type Metrics } from '../src/search/eval.ts';
import { Searcher, type SearchMode } from '../src/search/search.ts';

import { CORPORA } from '../tests/helpers/tmp.ts';
import { EVAL_SETS } from './eval-set-list.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = CORPORA;
if (!existsSync(join(corpora, 'classics.bundle'))) throw new Error(`no bundles in ${corpora} (set RAGSYNC_CORPORA)`);
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

const SETS = EVAL_SETS;
const MODES: SearchMode[] = ['vector', 'keyword', 'hybrid'];

const work = mkdtempSync(join(tmpdir(), 'ragsync-eval-sets-'));
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string; chunker: string }[] };

const results: Record<string, Metrics> = {};
for (const variant of ['domain', 'markdown'] as const) {
  const cfgFile = join(work, `${variant}.json`);
  writeFileSync(
    cfgFile,
    JSON.stringify({
      ...base,
      db: `${variant}.db`,
      checkouts: `checkouts-${variant}`,
      sources: base.sources.map((s) => ({ ...s, url: `${s.name}.git`, chunker: variant === 'markdown' ? 'markdown' : s.chunker })),
    }),
  );
  const config = loadConfig(cfgFile);
  const r = await runIndex(config);
  if (r.status !== 'ok') throw new Error(`index ${variant}: ${r.status}`);
  const searcher = openSearcher(config);
  try {
    for (const set of SETS) {
      const cases = readEvalFile(join(root, set));
      for (const mode of MODES) results[`${variant}\t${set}\t${mode}`] = (await runEval(searcher, cases, { mode })).overall;
      // Query expansion (profiles' thesauri and glossaries, the corpus lexicon) is part of hybrid: before → after in one run.
      results[`${variant}\t${set}\thybrid, no expansion`] = (await runEval(searcher, cases, { mode: 'hybrid', expand: false })).overall;
    }
  } finally {
    await searcher.close();
  }
  const chunks = r.sources.map((s) => `${s.name} ${s.planned.chunks}`).join(', ');
  console.log(`${variant}: ${chunks} chunks`);
}

const f = (x: number) => x.toFixed(3);
console.log('| chunkers | set | mode | hit@1 | hit@3 | hit@10 | MRR@10 |');
console.log('|---|---|---|---:|---:|---:|---:|');
for (const [key, m] of Object.entries(results)) {
  const [variant, set, mode] = key.split('\t');
  console.log(`| ${variant} | ${set} (${m.queries}) | ${mode} | ${f(m.hit1)} | ${f(m.hit3)} | ${f(m.hit10)} | ${f(m.mrr10)} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 1));
rmSync(work, { recursive: true, force: true });
