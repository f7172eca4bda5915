/**
 * Watch mode over a real folder: the bookmarks corpus checked out into a temp folder (~1,360
 * Markdown files), indexed as a dir source with the offline hash embedder.
 *
 *   npx tsx bench/watch.bench.ts
 *
 * Prints, CPU time (user+sys) of this process, each against a baseline measured in this run:
 * - the catch-up run a restarted daemon makes over an unchanged folder (files listed by size and
 *   mtime, none read) against a run that reads and hashes every file (every mtime moved, the
 *   content not: what a watcher without stored state pays), and against the full first index;
 * - change → indexed latency of `Daemon` with watch on, for single-file edits (median and max of
 *   10, wall), with the debounce it includes, and the CPU time of each edit's watcher events and
 *   run against the no-op catch-up run. WATCH_DEBOUNCE_MS sets the debounce (default 1000).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { parseConfig } from '../src/builtin.ts';
import { Daemon } from '../src/daemon/daemon.ts';
import { type IndexResult } from '../src/sync/run.ts';
import { runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find((d) => {
  try {
    return readdirSync(d).includes('bookmarks.bundle');
  } catch {
    return false;
  }
})!;
const work = mkdtempSync(join(tmpdir(), 'ragsync-watch-bench-'));
const folder = join(work, 'bookmarks');
execFileSync('git', ['clone', '--quiet', join(corpora, 'bookmarks.bundle'), folder]);
rmSync(join(folder, '.git'), { recursive: true, force: true });

const debounceMs = Number(process.env.WATCH_DEBOUNCE_MS ?? 1000);
const config = parseConfig({
  db: join(work, 'index.db'),
  embedder: { provider: 'hash', dims: 256 },
  sources: [{ name: 'bookmarks', kind: 'dir', path: folder }],
  daemon: { schedule: '0 0 1 1 *', watchDebounceMs: debounceMs },
});

const cpuMs = async (f: () => Promise<IndexResult>): Promise<{ ms: number; r: IndexResult }> => {
  const c = process.cpuUsage();
  const r = await f();
  const d = process.cpuUsage(c);
  return { ms: (d.user + d.system) / 1000, r };
};
const docs = (r: IndexResult) => r.sources[0]!.written.documents;

const files: string[] = [];
const walk = (dir: string) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name));
    else if (e.name.endsWith('.md')) files.push(join(dir, e.name));
  }
};
walk(folder);
// Files as if copied in an hour ago: no stamp is "racy" (written within 2 s of its listing).
const hourAgo = Date.now() / 1000 - 3600;
for (const f of files) utimesSync(f, hourAgo, hourAgo);

const full = await cpuMs(() => runIndex(config));
console.log(`full index: ${files.length} files, ${full.r.textsEmbedded} texts embedded, ${full.ms.toFixed(0)} ms CPU`);

// Interleaved, three rounds: the restart catch-up (nothing changed) and the read-everything run.
const noop: number[] = [];
const rehash: number[] = [];
for (let round = 0; round < 3; round++) {
  const n = await cpuMs(() => runIndex(config, { trigger: 'watch' }));
  if (docs(n.r).unchanged !== files.length || n.r.textsEmbedded) throw new Error('the catch-up run was not a no-op');
  noop.push(n.ms);
  const moved = hourAgo + 60 * (round + 1);
  for (const f of files) utimesSync(f, moved, moved);
  const h = await cpuMs(() => runIndex(config, { trigger: 'watch' }));
  if (h.r.textsEmbedded) throw new Error('the re-hash run embedded');
  rehash.push(h.ms);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `restart catch-up, nothing changed: ${median(noop).toFixed(0)} ms CPU (median of 3) = ${(median(noop) / median(rehash)).toFixed(3)}× ` +
    `a run reading and hashing every file (${median(rehash).toFixed(0)} ms), ${(median(noop) / full.ms).toFixed(3)}× the full index`,
);

// Change → indexed, through the daemon's watcher, queue and run.
let resolveRun: (t: number) => void = () => {};
const log = pino({ level: 'info' }, {
  write: (line: string) => {
    const l = JSON.parse(line) as { msg: string; time: number };
    if (l.msg.startsWith('run ')) resolveRun(l.time);
  },
});
const daemon = new Daemon({ config, log, watch: true });
let next = new Promise<number>((r) => (resolveRun = r));
await daemon.start();
await next; // its catch-up run
const latencies: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < 10; i++) {
  next = new Promise<number>((r) => (resolveRun = r));
  const c = process.cpuUsage();
  const t0 = Date.now();
  appendFileSync(files[(i * 131) % files.length]!, `\n\nedit ${i}: a new closing line for this bookmark.\n`);
  latencies.push((await next) - t0);
  await daemon.whenIdle();
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
}
await daemon.stop();
console.log(
  `change → indexed (debounce ${debounceMs} ms included): median ${median(latencies)} ms, max ${Math.max(...latencies)} ms ` +
    `over 10 single-file edits; run after the debounce: median ${median(latencies) - debounceMs} ms wall, ` +
    `${median(cpu).toFixed(0)} ms CPU (watcher + run) = ${(median(cpu) / median(noop)).toFixed(2)}× the no-op catch-up run (load average ${loadavg()[0]!.toFixed(1)})`,
);
rmSync(work, { recursive: true, force: true });
