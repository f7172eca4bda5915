/**
 * The project's eval sets (bench/eval-set-list.ts) over both bundles' tips, scored the way
 * `ragsync eval` scores them (hit@1/3/10, MRR@10): the default search beside each of its single
 * parts on the same index (keyword alone, vector alone, hybrid without expansions), with a verdict
 * per set: does the default hold against each part within one query at hit@3?
 *
 *   npx tsx bench/eval-sets.bench.ts [--json OUT]
 *
 * Indexes the tips twice with the offline hash embedder (1024 dims): with the shipped config's
 * chunkers (`classics` / `bookmarks`) and with `markdown` for both. `--json` writes every figure
 * (overall and per kind), so two branches can be compared line by line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { modesBeatingDefault, readEvalFile, runModes, type Metrics, type ModeVariant } from '../src/search/eval.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';
import { EVAL_SETS } from './eval-set-list.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = CORPORA;
if (!existsSync(join(corpora, 'classics.bundle'))) throw new Error(`no bundles in ${corpora} (set RAGSYNC_CORPORA)`);
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;
const only = process.argv.includes('--variant') ? process.argv[process.argv.indexOf('--variant') + 1] : undefined;

const work = mkdtempSync(join(tmpdir(), 'ragsync-eval-sets-'));
const bundles: string[] = [...new Set(EVAL_SETS.map((s) => s.source))];
for (const name of bundles) execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${name}.bundle`), join(work, `${name}.git`)]);
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string; chunker: string }[] };

type Row = { variant: string; set: string; modes: Record<ModeVariant, Metrics>; byKind: Record<ModeVariant, Record<string, Metrics>>; losesTo: ModeVariant[] };
const rows: Row[] = [];
for (const variant of (['domain', 'markdown'] as const).filter((v) => !only || v === only)) {
  const cfgFile = join(work, `${variant}.json`);
  writeFileSync(
    cfgFile,
    JSON.stringify({
      ...base,
      db: `${variant}.db`,
      checkouts: `checkouts-${variant}`,
      sources: base.sources
        .filter((s) => bundles.includes(s.name))
        .map((s) => ({ ...s, url: `${s.name}.git`, chunker: variant === 'markdown' ? 'markdown' : s.chunker })),
    }),
  );
  const config = loadConfig(cfgFile);
  const r = await runIndex(config);
  if (r.status !== 'ok') throw new Error(`index ${variant}: ${r.status}`);
  const searcher = openSearcher(config);
  try {
    for (const { file } of EVAL_SETS) {
      const reports = await runModes(searcher, readEvalFile(join(root, file)));
      const pick = <T>(f: (x: (typeof reports)[ModeVariant]) => T) => Object.fromEntries(Object.entries(reports).map(([m, x]) => [m, f(x)])) as Record<ModeVariant, T>;
      rows.push({ variant, set: file, modes: pick((x) => x.overall), byKind: pick((x) => x.byKind), losesTo: modesBeatingDefault(reports) });
    }
  } finally {
    await searcher.close();
  }
  console.log(`${variant}: ${r.sources.map((s) => `${s.name} ${s.planned.chunks}`).join(', ')} chunks`);
}

const f = (x: number) => x.toFixed(3);
const MODES: ModeVariant[] = ['default', 'keyword', 'vector', 'expand off'];
console.log('\nhit@3 (hit@1 / MRR@10 of the default in brackets); verdict: the default holds against each part within one query\n');
console.log('| chunkers | set | default | keyword | vector | expand off | default ≥ each |');
console.log('|---|---|---:|---:|---:|---:|---|');
for (const r of rows) {
  const d = r.modes.default;
  const cells = MODES.map((m) => (m === 'default' ? `${f(d.hit3)} (${f(d.hit1)} / ${f(d.mrr10)})` : f(r.modes[m].hit3)));
  console.log(`| ${r.variant} | ${r.set} (${d.queries}) | ${cells.join(' | ')} | ${r.losesTo.length ? `no: ${r.losesTo.join(', ')}` : 'yes'} |`);
}
console.log('\nhit@3 per kind (default / keyword)\n');
for (const r of rows) {
  const kinds = Object.keys(r.byKind.default);
  if (kinds.length < 2) continue;
  console.log(`${r.variant} ${r.set}: ${kinds.map((k) => `${k} ${f(r.byKind.default[k]!.hit3)}/${f(r.byKind.keyword[k]!.hit3)}`).join(', ')}`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 1));
rmSync(work, { recursive: true, force: true });
