/**
 * The hot-path guard: this tree against the last release, every path in one run, interleaved, as
 * ratios with pass/fail against the goals.
 *
 *   npm run bench:guard -- [--base REF] [--rounds N] [--runs N] [--seconds S] [--strict] [--keep] [--clean]
 *
 * REF (default: the newest tag reachable from HEAD, else the commit in bench/guard-base, which a
 * release updates) is checked out as a git worktree under $TMPDIR/ragsync-guard/<commit>, with this
 * tree's node_modules linked in and built by its own `npm run build`; the worktree and its build are
 * kept between runs (so only the first run for a commit pays the build) — `--clean` removes them.
 * This tree must be built (`npm run build`).
 *
 * Both corpora (RAGSYNC_CORPORA, else ../shared/corpora) as git sources from bare clones, the
 * shipped config, the offline hash embedder. Each build has its own database and checkouts. Paths:
 *   - full index from nothing (clone included): wall and CPU, new ÷ base, and new's wall ÷ the
 *     embedder alone over the same distinct texts (in this process, timed between the runs);
 *   - the hourly no-op `index`: wall against the floor (`node -e 0` + the two `git fetch` it must do);
 *   - `serve` under 20 clients, default (hybrid, k = 10) searches of the eval queries: searches/s
 *     new ÷ base, and new's p99;
 *   - a cold one-shot `search` (keyword / hybrid): wall new ÷ base.
 * Every timing takes turns between the commands (floor, base, new, …) so a burst of load from other
 * processes hits each alike; the load average is printed with the figures. Exit status is non-zero
 * on a fail only with --strict (timings on a busy machine fail goals they meet on a quiet one).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { HashEmbedder } from '../src/embedding/hash.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';
import { percentile, runLoad } from './http-load.ts';
import { startServeOn, takeFlag, takeOption } from './serve-process.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string, def: string) => takeOption(args, name, def);
const strict = takeFlag(args, '--strict');
const keep = takeFlag(args, '--keep');
const clean = takeFlag(args, '--clean');
const rounds = Number(opt('--rounds', '2'));
const runs = Number(opt('--runs', '8'));
const seconds = Number(opt('--seconds', '8'));
const git = (...a: string[]) => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8' }).trim();

// --- the previous release, built beside this tree -------------------------------------------
function defaultBase(): string {
  const tag = spawnSync('git', ['-C', root, 'describe', '--tags', '--abbrev=0', 'HEAD'], { encoding: 'utf8' });
  if (tag.status === 0 && tag.stdout.trim()) return tag.stdout.trim();
  return readFileSync(join(root, 'bench', 'guard-base'), 'utf8').trim();
}
const ref = opt('--base', '') || defaultBase();
const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
const cache = join(tmpdir(), 'ragsync-guard');
const baseDir = join(cache, sha.slice(0, 12));
if (clean && existsSync(baseDir)) {
  git('worktree', 'remove', '--force', baseDir);
  console.log(`removed ${baseDir}`);
  process.exit(0);
}
if (!existsSync(join(root, 'dist', 'bundle', 'boot.cjs'))) throw new Error(`${root}: not built (npm run build)`);
if (!existsSync(join(baseDir, '.guard-built'))) {
  mkdirSync(cache, { recursive: true });
  if (existsSync(baseDir)) git('worktree', 'remove', '--force', baseDir);
  git('worktree', 'prune');
  git('worktree', 'add', '--quiet', '--detach', baseDir, sha);
  symlinkSync(join(root, 'node_modules'), join(baseDir, 'node_modules'));
  console.error(`building ${ref} (${sha.slice(0, 9)}) in ${baseDir} …`);
  execFileSync('npm', ['run', 'build'], { cwd: baseDir, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(join(baseDir, '.guard-built'), sha);
}

// --- fixture: bare clones, one config (database, checkouts) per build -----------------------
const work = mkdtempSync(join(tmpdir(), 'ragsync-guard-run-'));
const cleanup = () => rmSync(work, { recursive: true, force: true });
process.on('exit', () => keep || cleanup());
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
}
type Build = { name: 'base' | 'new'; dir: string; cfg: string; db: string; checkouts: string };
const builds: Build[] = (
  [
    ['base', baseDir],
    ['new', root],
  ] as const
).map(([name, dir]) => {
  const shipped = JSON.parse(readFileSync(join(dir, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
  const cfg = join(work, `${name}.json`);
  const { $schema: _, ...rest } = shipped as { $schema?: string; sources: { name: string }[] };
  writeFileSync(cfg, JSON.stringify({ ...rest, db: `${name}.db`, checkouts: `${name}-checkouts`, sources: shipped.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
  return { name, dir, cfg, db: join(work, `${name}.db`), checkouts: join(work, `${name}-checkouts`) };
});
const [base, mine] = builds as [Build, Build];

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const bin = (b: Build) => `node ${q(join(b.dir, 'bin', 'ragsync.js'))}`;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
const gnuTime = existsSync('/usr/bin/time');

/** One run of a shell command: wall and CPU (user + system, children included) seconds. */
function timeOnce(cmd: string): { wall: number; cpu: number } {
  const t = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
    : spawnSync('sh', ['-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd}: exit ${r.status}\n${r.stderr}`);
  const [u, s] = gnuTime ? r.stderr.trim().split('\n').pop()!.split(' ').map(Number) : [NaN, NaN];
  return { wall, cpu: u! + s! };
}

/** Medians of `n` turns taken between the commands (after one untimed turn). */
function interleave(commands: string[], n: number): { wall: number; cpu: number }[] {
  const got = commands.map(() => [] as { wall: number; cpu: number }[]);
  for (let i = 0; i <= n; i++) commands.forEach((c, j) => (i ? got[j]!.push(timeOnce(c)) : timeOnce(c)));
  return got.map((xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) }));
}

type Row = { path: string; figure: string; goal: string; pass: boolean | null };
const rows: Row[] = [];
const ratio = (x: number) => `${x.toFixed(2)}×`;
console.log(`guard: ${mine.dir} (HEAD ${git('rev-parse', '--short', 'HEAD')}) against ${ref} (${sha.slice(0, 9)}); load average at start ${loadavg()}`);

// 1. Full index from nothing, alternating; the embedder alone over the new index's texts between.
const full = { base: [] as { wall: number; cpu: number }[], new: [] as { wall: number; cpu: number }[] };
const embed: { wall: number; cpu: number }[] = [];
for (let r = 0; r < rounds; r++) {
  for (const b of r % 2 ? [mine, base] : [base, mine]) {
    rmSync(b.db, { force: true });
    for (const ext of ['-wal', '-shm']) rmSync(b.db + ext, { force: true });
    rmSync(b.checkouts, { recursive: true, force: true });
    full[b.name].push(timeOnce(`cd ${q(work)} && ${bin(b)} index -c ${q(b.cfg)}`));
    if (b === mine) embed.push(await embedAlone());
  }
}
/** Seconds (wall, CPU) the hash embedder takes over the distinct chunk texts of the new index, in batches of 256. */
async function embedAlone(): Promise<{ wall: number; cpu: number }> {
  const db = new Database(mine.db, { readonly: true });
  const texts = db.prepare('SELECT DISTINCT text FROM chunks').pluck().all() as string[];
  db.close();
  const dims = (JSON.parse(readFileSync(mine.cfg, 'utf8')) as { embedder: { dims: number } }).embedder.dims;
  const e = new HashEmbedder(dims);
  const t = performance.now();
  const c = process.cpuUsage();
  for (let i = 0; i < texts.length; i += 256) await e.embed(texts.slice(i, i + 256));
  const { user, system } = process.cpuUsage(c);
  return { wall: (performance.now() - t) / 1000, cpu: (user + system) / 1e6 };
}
const fb = { wall: median(full.base.map((x) => x.wall)), cpu: median(full.base.map((x) => x.cpu)) };
const fn = { wall: median(full.new.map((x) => x.wall)), cpu: median(full.new.map((x) => x.cpu)) };
const emb = { wall: median(embed.map((x) => x.wall)), cpu: median(embed.map((x) => x.cpu)) };
rows.push({ path: 'full index, wall', figure: `${fb.wall.toFixed(1)} s → ${fn.wall.toFixed(1)} s (${ratio(fn.wall / fb.wall)})`, goal: '—', pass: null });
rows.push({ path: 'full index, CPU', figure: `${fb.cpu.toFixed(1)} s → ${fn.cpu.toFixed(1)} s (${ratio(fn.cpu / fb.cpu)})`, goal: '—', pass: null });
// CPU decides: on a shared machine a run's wall is mostly other processes' turns.
rows.push({
  path: 'full index ÷ embedder alone (CPU; wall)',
  figure: `base ${ratio(fb.cpu / emb.cpu)}, new ${ratio(fn.cpu / emb.cpu)} (embedder ${emb.cpu.toFixed(2)} s CPU); wall ${ratio(fb.wall / emb.wall)} → ${ratio(fn.wall / emb.wall)}`,
  goal: '≤ 3×',
  pass: fn.cpu / emb.cpu <= 3,
});

// 2. The hourly no-op, against its floor.
/** A source's checkout: `<checkouts>/<name>`, or `<name>-<hash of the index>` since checkouts belong to one index. */
const checkoutOf = (b: Build, name: string) => join(b.checkouts, readdirSync(b.checkouts).find((d) => d === name || d.startsWith(`${name}-`)) ?? name);
const fetches = (b: Build) =>
  ['classics', 'bookmarks']
    .map((n) => `git -C ${q(checkoutOf(b, n))} fetch --quiet --prune --no-tags -- ${q(join(work, `${n}.git`))} +refs/heads/main:refs/remotes/origin/main`)
    .join(' && ');
const [floor, nb, nn] = interleave(
  [`node -e 0 && ${fetches(mine)}`, `cd ${q(work)} && ${bin(base)} index -c ${q(base.cfg)}`, `cd ${q(work)} && ${bin(mine)} index -c ${q(mine.cfg)}`],
  runs * 2,
);
rows.push({
  path: 'no-op index, wall ÷ floor',
  figure: `floor ${floor!.wall.toFixed(3)} s; base ${ratio(nb!.wall / floor!.wall)}, new ${ratio(nn!.wall / floor!.wall)} (CPU ${ratio(nb!.cpu / floor!.cpu)} → ${ratio(nn!.cpu / floor!.cpu)})`,
  goal: '≤ 1.30×',
  pass: nn!.wall / floor!.wall <= 1.3,
});

// 3. Cold one-shot searches.
for (const mode of ['keyword', 'hybrid']) {
  const cmd = (b: Build) => `cd ${q(work)} && ${bin(b)} search 伤官配印 --source classics -k 5 --mode ${mode} -c ${q(b.cfg)}`;
  const [sb, sn] = interleave([cmd(base), cmd(mine)], runs);
  rows.push({
    path: `cold search ${mode}, wall`,
    figure: `${(sb!.wall * 1000).toFixed(0)} → ${(sn!.wall * 1000).toFixed(0)} ms (${ratio(sn!.wall / sb!.wall)}; CPU ${ratio(sn!.cpu / sb!.cpu)})`,
    goal: '≤ 1.05× (no slower, within noise)',
    pass: sn!.wall / sb!.wall <= 1.05,
  });
}

// 4. serve under 20 clients, default searches; rounds alternate which build goes first.
const paths = ['eval/classics.jsonl', 'eval/bookmarks.jsonl', 'bench/eval/classics-search.jsonl', 'bench/eval/bookmarks-search.jsonl']
  .flatMap((f) => readEvalFile(join(root, f)))
  .map((c) => `/search?q=${encodeURIComponent(c.query)}&k=10${c.source ? `&source=${c.source}` : ''}`);
const serve = { base: [] as { rps: number; p99: number; errors: number }[], new: [] as { rps: number; p99: number; errors: number }[] };
for (let r = 0; r < rounds; r++) {
  for (const b of r % 2 ? [mine, base] : [base, mine]) {
    const port = 18_900 + (b === mine ? 1 : 0);
    const child = await startServeOn([join(b.dir, 'bin', 'ragsync.js')], b.cfg, port, work);
    try {
      for (const p of paths) await (await fetch(`http://127.0.0.1:${port}${p}`)).text();
      const { latencies, errors, seconds: took } = await runLoad({ port, paths, clients: 20, seconds, warmup: 2 });
      latencies.sort((a, b) => a - b);
      serve[b.name].push({ rps: latencies.length / took, p99: percentile(latencies, 0.99), errors });
    } finally {
      child.kill();
      await new Promise((r) => child.once('exit', r));
    }
  }
}
const sv = (n: 'base' | 'new') => ({
  rps: median(serve[n].map((x) => x.rps)),
  p99: median(serve[n].map((x) => x.p99)),
  errors: serve[n].reduce((e, x) => e + x.errors, 0),
});
const [svb, svn] = [sv('base'), sv('new')];
// An answer other than 200 is a refusal, not a search: a run with any does not count.
const refused = svb.errors || svn.errors ? `; answers not 200: base ${svb.errors}, new ${svn.errors}` : '';
rows.push({
  path: 'serve, 20 clients: searches/s',
  figure: `${svb.rps.toFixed(0)} → ${svn.rps.toFixed(0)} (${ratio(svn.rps / svb.rps)})${refused}`,
  goal: '≥ 2×, every answer 200',
  pass: !refused && svn.rps / svb.rps >= 2,
});
rows.push({ path: 'serve, 20 clients: p99', figure: `${svb.p99.toFixed(0)} → ${svn.p99.toFixed(0)} ms`, goal: '≤ 150 ms', pass: svn.p99 <= 150 });

console.log(`load average at end ${loadavg()}; ${rounds} rounds (full index, serve ${seconds} s each), ${runs} runs a search, ${runs * 2} a no-op`);
console.log('| path | base → new | goal | |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.path} | ${r.figure} | ${r.goal} | ${r.pass === null ? '' : r.pass ? 'pass' : '**FAIL**'} |`);
const failed = rows.filter((r) => r.pass === false).length;
console.log(failed ? `${failed} goal(s) not met${strict ? '' : ' (exit 0 without --strict)'}` : 'every goal met');
if (keep) console.log(`fixture kept: ${work}`);
process.exitCode = strict && failed ? 1 : 0;
