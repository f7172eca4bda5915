/**
 * The code chunker over the code corpus (tobi/qmd at its tip, code.bundle) with the offline hash
 * embedder.
 *
 *   npm run build && npx tsx bench/code.bench.ts
 *
 * Prints: chunking throughput (files/s, chunks/s, lines/s) of the `code` chunker against the same
 * files cut into line windows only (its own fallback, no parsing: the baseline, measured in this
 * run); a full index of the repository, the wall time of a no-op `ragsync index` process against a
 * bare `node -e 0` start, and a one-commit re-index (the tip's parent → the tip), with texts embedded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { codeChunker } from '../src/chunking/code/index.ts';
import { CODE_EXCLUDES } from '../src/chunking/code/excludes.ts';
import { CODE_INCLUDE } from '../src/chunking/code/languages.ts';
import { Rows } from '../src/chunking/code/rows.ts';
import { windowsOf } from '../src/chunking/code/pieces.ts';
import { pathMatcher } from '../src/sources/match.ts';
import { runIndex } from '../src/engine/library.ts';


const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find((d) => {
  try {
    return readFileSync(join(d, 'code.bundle')).length > 0;
  } catch {
    return false;
  }
})!;
const bin = join(root, 'bin', 'ragsync.js');
const work = mkdtempSync(join(tmpdir(), 'ragsync-code-bench-'));
const bare = join(work, 'qmd.git');
const tree = join(work, 'qmd');
execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, 'code.bundle'), bare]);
execFileSync('git', ['clone', '--quiet', '--branch', 'main', bare, tree]);
const tip = execFileSync('git', ['-C', bare, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
const parent = execFileSync('git', ['-C', bare, 'rev-parse', 'main~1'], { encoding: 'utf8' }).trim();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wall = (cmd: string, args: string[]) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
};

// 1. Chunking throughput, code chunker against line windows over the same files.
const match = pathMatcher([...CODE_INCLUDE], [...CODE_EXCLUDES]);
const files = execFileSync('git', ['-C', tree, 'ls-files'], { encoding: 'utf8' }).split('\n').filter((p) => p && match(p));
const texts = files.map((path) => ({ path, text: readFileSync(join(tree, path), 'utf8') }));
const lines = texts.reduce((n, f) => n + f.text.split('\n').length, 0);
const settings = { targetTokens: 500, overlap: 0.15 };
const chunker = codeChunker(settings);
let t0 = performance.now();
await chunker.prepare!(files);
const loadMs = performance.now() - t0;
const rounds = 5;
const codeRuns: number[] = [];
const lineRuns: number[] = [];
let chunks = 0;
let windows = 0;
for (let r = 0; r < rounds; r++) {
  t0 = performance.now();
  chunks = 0;
  for (const f of texts) chunks += chunker.chunk(f).chunks.length;
  codeRuns.push(performance.now() - t0);
  t0 = performance.now();
  windows = 0;
  for (const f of texts) windows += windowsOf(new Rows(f.text.split('\n')), settings.targetTokens).length;
  lineRuns.push(performance.now() - t0);
}
const codeMs = median(codeRuns);
const lineMs = median(lineRuns);
console.log(`corpus: ${files.length} files, ${lines} lines (tobi/qmd @${tip.slice(0, 7)})`);
console.log(`grammars loaded in ${loadMs.toFixed(0)} ms (once per process)`);
console.log(
  `code chunker: ${codeMs.toFixed(0)} ms — ${((files.length / codeMs) * 1000).toFixed(0)} files/s, ${((chunks / codeMs) * 1000).toFixed(0)} chunks/s, ` +
    `${((lines / codeMs) * 1000).toFixed(0)} lines/s (${chunks} chunks; median of ${rounds})`,
);
console.log(`baseline, line windows only: ${lineMs.toFixed(0)} ms — ${((files.length / lineMs) * 1000).toFixed(0)} files/s (${windows} windows); code/baseline ${(codeMs / lineMs).toFixed(1)}×`);

// 2. Index, no-op, one commit.
execFileSync('git', ['-C', bare, 'update-ref', 'refs/heads/main', parent]);
const cfgFile = join(work, 'ragsync.json');
writeFileSync(cfgFile, JSON.stringify({ db: 'index.db', embedder: { provider: 'hash', dims: 1024 }, sources: [{ name: 'qmd', kind: 'git', url: 'qmd.git', chunker: 'code' }] }));
const config = loadConfig(cfgFile);
t0 = performance.now();
const full = await runIndex(config);
const fullMs = performance.now() - t0;
const w = full.sources[0]!.written;
console.log(`full index @${parent.slice(0, 7)}: ${(fullMs / 1000).toFixed(2)} s, ${w.documents.added} files, ${w.chunks} chunks, ${full.textsEmbedded} texts embedded — ${((w.documents.added / fullMs) * 1000).toFixed(0)} files/s, ${((w.chunks / fullMs) * 1000).toFixed(0)} chunks/s`);
const node = median([0, 1, 2, 3, 4].map(() => wall(process.execPath, ['-e', '0'])));
const noop = median([0, 1, 2, 3, 4].map(() => wall(process.execPath, [bin, 'index', '-c', cfgFile, '--json'])));
console.log(`no-op \`ragsync index\` process: ${noop.toFixed(0)} ms wall (median of 5; bare node -e 0: ${node.toFixed(0)} ms, ${(noop / node).toFixed(1)}×)`);
execFileSync('git', ['-C', bare, 'update-ref', 'refs/heads/main', tip]);
t0 = performance.now();
const step = await runIndex(config);
const stepMs = performance.now() - t0;
const s = step.sources[0]!.written;
const changedChunks = s.chunks;
console.log(
  `one commit (${parent.slice(0, 7)} → ${tip.slice(0, 7)}): ${stepMs.toFixed(0)} ms, ${s.documents.added + s.documents.changed + s.documents.renamed} files written, ` +
    `${changedChunks} chunks in them, ${step.textsEmbedded} texts embedded (${((step.textsEmbedded / Math.max(1, changedChunks)) * 100).toFixed(0)} % of a file-level re-embed)`,
);
rmSync(work, { recursive: true, force: true });
