/**
 * Retrieval quality of the domain chunkers against the generic Markdown chunker, on the eval sets
 * (eval/classics.jsonl, eval/bookmarks.jsonl) over the real corpora's tips.
 *
 *   npx tsx bench/chunkers-eval.bench.ts
 *
 * Indexes both bundles into two temp DBs with the offline hash embedder — once with chunker
 * `markdown` for both sources and no keyword normalisation (before), once with `classics` /
 * `bookmarks` and normalizeForSearch as the keyword tokeniser's normaliser (after), same chunk size
 * settings — then searches (Searcher, k = 3, restricted to the query's source) for every eval query
 * in each mode: exact vector, keyword (FTS5), hybrid (RRF). A query is a hit when one of the top 3
 * chunks is from a gold file and contains every evidence string of that gold entry (no evidence:
 * any chunk of the file). Prints hit@3 per corpus, query kind and mode, before → after.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import type { Config } from '../src/config/load.ts';
import { Searcher, type SearchMode } from '../src/search/search.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';


interface EvalQuery {
  id: string;
  query: string;
  kind: string;
  source: string;
  gold: { path: string; evidence: string[] }[];
}

const K = 3;
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find((d) => {
  try {
    readFileSync(join(d, 'README.md'));
    return true;
  } catch {
    return false;
  }
})!;
const work = mkdtempSync(join(tmpdir(), 'ragsync-chunkers-eval-'));
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as {
  sources: { name: string; chunker: string }[];
};
const queries: EvalQuery[] = ['classics', 'bookmarks'].flatMap((n) =>
  readFileSync(join(root, 'eval', `${n}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EvalQuery),
);

const MODES: SearchMode[] = ['vector', 'keyword', 'hybrid'];

async function evaluate(variant: 'markdown' | 'domain'): Promise<{ hits: Map<string, boolean>; chunks: number; ms: number }> {
  // Each source's profile decides its keyword analysis (the markdown profile: the engine's own).
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
  const t0 = performance.now();
  const result = await runIndex(config);
  const ms = performance.now() - t0;
  if (result.status !== 'ok') throw new Error(`index ${variant}: ${result.status}`);
  const chunks = result.sources.reduce((n, s) => n + s.planned.chunks, 0);
  const searcher = openSearcher(config);
  const hits = new Map<string, boolean>();
  try {
    for (const mode of MODES) {
      for (const q of queries) {
        const top = await searcher.search(q.query, { k: K, sources: [q.source], mode });
        hits.set(
          `${mode}\t${q.id}`,
          top.some((h) => q.gold.some((g) => g.path === h.path && g.evidence.every((e) => h.content.includes(e)))),
        );
      }
    }
  } finally {
    await searcher.close();
  }
  return { hits, chunks, ms };
}

const before = await evaluate('markdown');
const after = await evaluate('domain');

const groups = new Map<string, EvalQuery[]>();
for (const q of queries) {
  for (const key of [`${q.source}\t${q.kind}`, `${q.source}\tall`]) groups.set(key, [...(groups.get(key) ?? []), q]);
}
const rate = (hits: Map<string, boolean>, mode: string, qs: EvalQuery[]) => qs.filter((q) => hits.get(`${mode}\t${q.id}`)).length / qs.length;
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
console.log(`hit@${K}, hash embedder; before: markdown chunker, no keyword normalisation; after: classics/bookmarks + normalizeForSearch`);
console.log(`| corpus | kind | queries | ${MODES.map((m) => `${m} before → after`).join(' | ')} |`);
console.log(`|---|---|---:|${MODES.map(() => '---:').join('|')}|`);
for (const [key, qs] of [...groups].sort()) {
  const [source, kind] = key.split('\t');
  const cells = MODES.map((m) => `${pct(rate(before.hits, m, qs))} → ${pct(rate(after.hits, m, qs))}`);
  console.log(`| ${source} | ${kind} | ${qs.length} | ${cells.join(' | ')} |`);
}
console.log(`chunks: before ${before.chunks}, after ${after.chunks}; index time: before ${(before.ms / 1000).toFixed(1)} s, after ${(after.ms / 1000).toFixed(1)} s`);
for (const mode of MODES) {
  for (const q of queries) {
    const b = before.hits.get(`${mode}\t${q.id}`);
    const a = after.hits.get(`${mode}\t${q.id}`);
    if (a !== b) console.log(`${mode} ${a ? '+' : '-'} ${q.id} ${q.query}`);
    else if (!a && process.env.SHOW_MISSES) console.log(`${mode} miss ${q.id} ${q.query}`);
  }
}
rmSync(work, { recursive: true, force: true });
