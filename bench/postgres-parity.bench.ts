/**
 * Every eval set on SQLite and on Postgres, query by query: both bundles' tips indexed into each
 * backend with the shipped config (hash embedder), then each set's queries searched in vector,
 * keyword, hybrid and hybrid without expansion by a long-lived Searcher per backend, interleaved.
 * Prints hit@10 per backend and how many queries' top 10 differ (in order, or in scores only);
 * `--json OUT` writes the differing lists (ids and scores) for a diff.
 *
 *   npx tsx bench/postgres-parity.bench.ts --pg postgres://… [--exact] [--analyze] [--json OUT]
 *
 * `--exact`: Postgres ranks vectors by exact search (config `search.exact`). `--analyze`: ANALYZE
 * the index's tables before searching, as a server does in time (without statistics the planner
 * ranks a source-filtered vector query by an exact scan, never walking the HNSW index).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/builtin.ts';
import { isHit, readEvalFile } from '../src/search/eval.ts';
import { Searcher, type SearchOptions } from '../src/search/search.ts';

import { CORPORA } from '../tests/helpers/tmp.ts';
import { EVAL_SETS } from './eval-set-list.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const pgBase = opt('--pg') ?? process.env.RAGSYNC_BENCH_PG_URL;
if (!pgBase) throw new Error('usage: postgres-parity.bench.ts --pg postgres://… [--exact] [--analyze] [--json OUT]');
const schema = `parity_${process.pid}`;

const SETS = EVAL_SETS.map((s) => s.file);
const MODES: [string, SearchOptions][] = [
  ['vector', { mode: 'vector' }],
  ['keyword', { mode: 'keyword' }],
  ['hybrid', { mode: 'hybrid' }],
  ['hybrid-noexp', { mode: 'hybrid', expand: false }],
];

const work = mkdtempSync(join(tmpdir(), 'ragsync-parity-'));
const admin = new pg.Client({ connectionString: pgBase });
await admin.connect();
try {
  for (const name of ['classics', 'bookmarks']) execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
  const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
  const pgUrl = `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}`;
  const configOf = (backend: string, db: string, search?: object) => {
    const file = join(work, `${backend}.json`);
    writeFileSync(file, JSON.stringify({ ...base, db, checkouts: `checkouts-${backend}`, search, sources: base.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
    return loadConfig(file);
  };
  const configs = { sqlite: configOf('sqlite', 'parity.db'), postgres: configOf('postgres', pgUrl, args.includes('--exact') ? { exact: true } : undefined) };
  for (const c of Object.values(configs)) if ((await runIndex(c)).status !== 'ok') throw new Error(`index ${c.db}: not ok`);
  if (args.includes('--analyze')) await admin.query(`ANALYZE "${schema}".sources, "${schema}".documents, "${schema}".chunks, "${schema}".vectors`);
  const searchers = { sqlite: openSearcher(configs.sqlite), postgres: openSearcher(configs.postgres) };
  const apart: Record<string, { query: string; sqlite: string[]; postgres: string[] }> = {};
  console.log('| set (queries) | mode | SQLite hit@10 | Postgres hit@10 | lists apart in order | in scores only |');
  console.log('|---|---|---:|---:|---:|---:|');
  try {
    for (const set of SETS) {
      const cases = readEvalFile(join(root, set));
      for (const [label, opts] of MODES) {
        const hits = { sqlite: 0, postgres: 0 };
        let order = 0;
        let scores = 0;
        for (const c of cases) {
          const lists = { sqlite: [] as string[], postgres: [] as string[] };
          for (const b of ['sqlite', 'postgres'] as const) {
            const results = await searchers[b].search(c.query, { ...opts, k: 10, sources: c.source ? [c.source] : undefined });
            if (results.some((r) => isHit(r, c))) hits[b]++;
            lists[b] = results.map((r) => `${r.id} ${r.score.toFixed(6)}`);
          }
          if (lists.sqlite.join('\n') === lists.postgres.join('\n')) continue;
          const ids = (l: string[]) => l.map((x) => x.split(' ')[0]).join('\n');
          if (ids(lists.sqlite) === ids(lists.postgres)) scores++;
          else order++;
          apart[`${set}\t${label}\t${c.id}`] = { query: c.query, ...lists };
        }
        const f = (n: number) => (n / cases.length).toFixed(3);
        console.log(`| ${set} (${cases.length}) | ${label} | ${f(hits.sqlite)} | ${f(hits.postgres)} | ${order} | ${scores} |`);
      }
    }
  } finally {
    for (const s of Object.values(searchers)) await s.close();
  }
  const out = opt('--json');
  if (out) writeFileSync(out, JSON.stringify(apart, null, 1));
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await admin.end();
  rmSync(work, { recursive: true, force: true });
}
