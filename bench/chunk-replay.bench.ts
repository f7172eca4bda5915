/**
 * What following the classics history costs in embeddings, per chunker: classics.bundle's five
 * commits replayed in order, each commit's changed files chunked once, a chunk text counted as
 * embedded unless an earlier commit produced the same text (tests/helpers/chunk-replay.ts).
 *
 *   npx tsx bench/chunk-replay.bench.ts [--bookmarks]
 *
 * Prints, per chunker and commit: changed files, distinct chunk texts of those files, texts to
 * embed and their share; then commits 2–5 together as characters embedded over the characters of
 * every chunk text of the changed files (what re-embedding each changed file whole would cost).
 * `--bookmarks` also replays bookmarks.bundle (1,340 commits; about a minute per chunker).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinProfiles, parseConfig } from '../src/builtin.ts';
const { chunkerNames, createChunker } = builtinProfiles;
import { commitsOf, replayChunking, type CommitCost } from '../tests/helpers/chunk-replay.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = CORPORA;
if (!existsSync(join(corpora, 'classics.bundle'))) throw new Error(`no bundles in ${corpora} (set RAGSYNC_CORPORA)`);
const config = parseConfig(JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')));
const work = mkdtempSync(join(tmpdir(), 'ragsync-chunk-replay-'));
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '—');

async function replay(bundle: 'classics' | 'bookmarks', details: boolean): Promise<void> {
  const gitDir = join(work, `${bundle}.git`);
  execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${bundle}.bundle`), gitDir]);
  const source = config.sources.find((s) => s.name === bundle)!;
  const commits = commitsOf(gitDir);
  console.log(`\n${bundle}.bundle: ${commits.length} commits, include ${source.include.join(' ')}, targetTokens ${source.chunking.targetTokens}`);
  const summary: string[] = [];
  for (const name of chunkerNames()) {
    const t0 = performance.now();
    const costs = await replayChunking(gitDir, commits, source.include, source.exclude, createChunker(name, source.chunking));
    const ms = performance.now() - t0;
    if (details) {
      console.log(`\n${name}:`);
      console.log('| commit | files | texts | embedded | share | chars embedded / file-level |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (const c of costs) {
        console.log(`| ${c.sha.slice(0, 7)} | ${c.files} | ${c.texts} | ${c.newTexts} | ${pct(c.newTexts, c.texts)} | ${pct(c.newChars, c.changedChars)} |`);
      }
    }
    const later = costs.slice(1);
    const sum = (k: keyof Omit<CommitCost, 'sha'>) => later.reduce((n, c) => n + c[k], 0);
    const step = bundle === 'classics' ? ` | ${pct(costs[3]!.newTexts, costs[3]!.texts)} (${costs[3]!.newTexts} of ${costs[3]!.texts})` : '';
    summary.push(`| ${name}${step} | ${pct(sum('newChars'), sum('changedChars'))} (${sum('newTexts')} texts) | ${(ms / 1000).toFixed(1)} s |`);
  }
  console.log(`\n${bundle}: commits 2–${commits.length} together, characters embedded / file-level re-embed`);
  console.log(bundle === 'classics' ? '| chunker | 6be38c9 texts embedded | commits 2–5 characters | replay time |' : '| chunker | commits 2–N characters | replay time |');
  console.log(bundle === 'classics' ? '|---|---:|---:|---:|' : '|---|---:|---:|');
  for (const line of summary) console.log(line);
}

try {
  await replay('classics', true);
  if (process.argv.includes('--bookmarks')) await replay('bookmarks', false);
} finally {
  rmSync(work, { recursive: true, force: true });
}
