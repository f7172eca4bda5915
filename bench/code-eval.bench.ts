/**
 * The code eval sets (eval/dev/code*.jsonl, eval/heldout/code*.jsonl) over the code corpus's tip
 * (tobi/qmd, code.bundle), indexed with the `code` chunker and profile and the offline hash
 * embedder (1024 dims), scored the way `ragsync eval` scores them, in every mode: vector, keyword,
 * hybrid with and without query expansion. Identifier lookups are also counted at rank 1.
 *
 *   RAGSYNC_CORPORA=/work/shared/corpora npx tsx bench/code-eval.bench.ts [--json OUT] [--results DIR]
 *
 * `--results DIR` writes each set's ranked results per query and mode (for reading failures).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile, runEval, type Metrics } from '../src/search/eval.ts';
import { Searcher } from '../src/search/search.ts';

import { CORPORA } from '../tests/helpers/tmp.ts';
import { CODE_EVAL_SETS } from './eval-set-list.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
if (!existsSync(join(CORPORA, 'code.bundle'))) throw new Error(`no code.bundle in ${CORPORA} (set RAGSYNC_CORPORA)`);
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const jsonOut = arg('--json');
const resultsDir = arg('--results');
if (resultsDir) mkdirSync(resultsDir, { recursive: true });

const work = mkdtempSync(join(tmpdir(), 'ragsync-code-eval-'));
execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, 'code.bundle'), join(work, 'code.git')]);
const cfgFile = join(work, 'ragsync.json');
writeFileSync(
  cfgFile,
  JSON.stringify({ db: 'index.db', embedder: { provider: 'hash', dims: 1024 }, sources: [{ name: 'code', kind: 'git', url: 'code.git', branch: 'main', chunker: 'code' }] }),
);
const config = loadConfig(cfgFile);
const r = await runIndex(config);
if (r.status !== 'ok') throw new Error(`index: ${r.status}`);
console.log(`code: ${r.sources[0]!.planned.chunks} chunks`);

const MODES = [
  { name: 'vector', opts: { mode: 'vector' as const } },
  { name: 'keyword', opts: { mode: 'keyword' as const } },
  { name: 'hybrid', opts: { mode: 'hybrid' as const } },
  { name: 'hybrid, no expansion', opts: { mode: 'hybrid' as const, expand: false } },
];
const results: Record<string, Metrics & { identifierRank1?: string; hit3ByKind?: Record<string, number> }> = {};
const searcher = openSearcher(config);
try {
  for (const set of CODE_EVAL_SETS) {
    const file = join(root, set);
    if (!existsSync(file)) continue;
    const cases = readEvalFile(file);
    for (const m of MODES) {
      const resultsFile = resultsDir ? join(resultsDir, `${basename(set, '.jsonl')}.${m.name.replace(/\W+/g, '-')}.jsonl`) : undefined;
      const rep = await runEval(searcher, cases, { ...m.opts, resultsFile });
      const ids = rep.ranks.filter((x) => x.kind === 'identifier');
      results[`${set}\t${m.name}`] = {
        ...rep.overall,
        ...(ids.length ? { identifierRank1: `${ids.filter((x) => x.rank === 1).length}/${ids.length}` } : {}),
        hit3ByKind: Object.fromEntries(Object.entries(rep.byKind).map(([k, x]) => [k, Number(x.hit3.toFixed(3))])),
      };
      if (resultsDir) writeFileSync(join(resultsDir, `${basename(set, '.jsonl')}.${m.name.replace(/\W+/g, '-')}.ranks.json`), JSON.stringify(rep.ranks));
    }
  }
} finally {
  await searcher.close();
}

const f = (x: number) => x.toFixed(3);
console.log('| set | mode | hit@1 | hit@3 | hit@10 | MRR@10 | identifiers at 1 | hit@3 by kind |');
console.log('|---|---|---:|---:|---:|---:|---:|---|');
for (const [key, m] of Object.entries(results)) {
  const [set, mode] = key.split('\t');
  console.log(`| ${set} (${m.queries}) | ${mode} | ${f(m.hit1)} | ${f(m.hit3)} | ${f(m.hit10)} | ${f(m.mrr10)} | ${m.identifierRank1 ?? ''} | ${Object.entries(m.hit3ByKind ?? {}).map(([k, x]) => `${k} ${f(x)}`).join(', ')} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 1));
rmSync(work, { recursive: true, force: true });
