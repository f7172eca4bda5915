/**
 * Cold start: each one-shot command against `node -e 0`, side by side in one run, medians.
 *
 *   npx tsx bench/cold/cold.bench.ts [--base DIR] [--runs N] [--fixture DIR] [--interleave] [--only NAME]
 *
 * Indexes both bundles' tips (RAGSYNC_CORPORA) with the offline hash embedder into a fixture
 * folder (kept with --fixture, so a second run skips indexing), then times each command of this
 * checkout's built bin (`npm run build` first) and, with --base, of another built checkout of the
 * project (e.g. a worktree of main) in the same run. Each checkout reads its own database, indexed
 * by its own bin (a newer schema is one the other refuses) and pulling its own git checkouts (<name>-<hash of the index>). Timing: hyperfine when installed, else (or
 * with --interleave) a node-timed loop taking turns between the commands. Ratios are against the
 * floor measured in the same call: `node -e 0`, or for the no-op index node plus the two git
 * fetches it must do. CPU (user + system, children included) is the steadier figure on a shared
 * machine. Peak RSS: /usr/bin/time -f %M when present, else an --import probe reading
 * process.resourceUsage().maxRSS at exit.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutFolder, indexIdentity } from '../../src/config/load.ts';
import { CORPORA } from '../../tests/helpers/tmp.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const base = arg('--base') ? resolve(arg('--base')!) : undefined;
const runs = Number(arg('--runs') ?? 20);
const useHyperfine = !process.argv.includes('--interleave') && spawnSync('hyperfine', ['--version']).status === 0;
const gnuTime = existsSync('/usr/bin/time');
if (!existsSync(join(CORPORA, 'classics.bundle'))) throw new Error(`no bundles in ${CORPORA} (set RAGSYNC_CORPORA)`);

const keep = arg('--fixture');
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'ragsync-cold-'));
mkdirSync(work, { recursive: true });
const cfg = join(work, 'cold.json');
const cfgBase = join(work, 'cold-base.json');
/** The config (and so the database) a checkout's commands use. */
const cfgOf = (dir: string) => (dir === base ? cfgBase : cfg);
const bin = (dir: string) => join(dir, 'bin', 'ragsync.js');
for (const dir of [root, base].filter(Boolean) as string[]) {
  if (!existsSync(join(dir, 'dist', 'cli', 'run.js'))) throw new Error(`${dir}: no dist/ (run npm run build there)`);
}

for (const [dir, file, db] of [[root, cfg, 'cold.db'], ...(base ? [[base, cfgBase, 'cold-base.db']] : [])] as [string, string, string][]) {
  if (existsSync(join(work, db))) continue;
  for (const name of ['classics', 'bookmarks']) {
    if (!existsSync(join(work, `${name}.git`))) execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
  }
  const shipped = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
  writeFileSync(file, JSON.stringify({ ...shipped, db, checkouts: 'checkouts', sources: shipped.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
  execFileSync('node', [bin(dir), 'index', '-c', file], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cold', version: '0' } } });
// What a client sends next: the server must then load its tools.
const LIST = [JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })];
// Fetches the hourly no-op must do anyway: its floor is node's start plus these. The checkouts are
// the ones this checkout's index (cold.db) pulls: each index has its own folder per source.
const fetches = ['classics', 'bookmarks']
  .map((n) => `git -C ${q(join(work, 'checkouts', checkoutFolder(n, indexIdentity(join(work, 'cold.db')))))} fetch --quiet --prune --no-tags -- ${q(join(work, `${n}.git`))} +refs/heads/main:refs/remotes/origin/main`)
  .join(' && ');

type Case = { name: string; cmd: (dir: string) => string; floor: string };
const NODE = 'node -e 0';
const FLOOR = `sh -c ${q(`node -e 0 && ${fetches}`)}`;
const cases: Case[] = [
  { name: '--help', cmd: (d) => `node ${bin(d)} --help`, floor: NODE },
  { name: 'search hybrid', cmd: (d) => `node ${bin(d)} search 伤官配印 --source classics -k 5 -c ${cfgOf(d)}`, floor: NODE },
  { name: 'search keyword', cmd: (d) => `node ${bin(d)} search 伤官配印 --source classics -k 5 --mode keyword -c ${cfgOf(d)}`, floor: NODE },
  { name: 'search vector', cmd: (d) => `node ${bin(d)} search 伤官配印 --source classics -k 5 --mode vector -c ${cfgOf(d)}`, floor: NODE },
  { name: 'mcp initialize', cmd: (d) => `sh -c ${q(`echo ${q(INIT)} | node ${bin(d)} mcp -c ${cfgOf(d)}`)}`, floor: NODE },
  {
    name: 'mcp initialize + tools/list',
    cmd: (d) => `sh -c ${q(`printf '%s\\n' ${[INIT, ...LIST].map(q).join(' ')} | node ${bin(d)} mcp -c ${cfgOf(d)}`)}`,
    floor: NODE,
  },
  { name: 'index (no-op)', cmd: (d) => `node ${bin(d)} index -c ${cfgOf(d)}`, floor: FLOOR },
];

// --only <text>: just the cases whose name contains it (e.g. --only index).
const only = arg('--only');
if (only) cases.splice(0, cases.length, ...cases.filter((c) => c.name.includes(only)));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Timing {
  /** Median wall seconds. */
  wall: number;
  /** Median (hyperfine: mean) user + system CPU seconds, children included: less sensitive to other load. */
  cpu: number;
}

/**
 * Each command's timing, all in one run: hyperfine (commands one after another), or with
 * --interleave (or without hyperfine) a node loop taking turns between the commands, so a burst of
 * other load on this shared machine hits every command alike; CPU from /usr/bin/time when present.
 */
function time(commands: string[]): Timing[] {
  if (useHyperfine) {
    const out = join(work, 'hyperfine.json');
    execFileSync('hyperfine', ['-N', '--style', 'none', '--warmup', '2', '--runs', String(runs), '--export-json', out, ...commands], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return (JSON.parse(readFileSync(out, 'utf8')) as { results: { median: number; user: number; system: number }[] }).results.map((r) => ({
      wall: r.median,
      cpu: r.user + r.system,
    }));
  }
  const walls = commands.map(() => [] as number[]);
  const cpus = commands.map(() => [] as number[]);
  for (let i = 0; i < runs + 2; i++) {
    commands.forEach((c, j) => {
      const t = process.hrtime.bigint();
      const r = gnuTime
        ? spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', `exec ${c}`], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
        : spawnSync('sh', ['-c', c], { stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`${c}: exit ${r.status}`);
      if (i < 2) return; // warm-up turns
      walls[j]!.push(Number(process.hrtime.bigint() - t) / 1e9);
      if (gnuTime) {
        const [u, sys] = (r.stderr as string).trim().split('\n').pop()!.split(' ').map(Number);
        cpus[j]!.push(u! + sys!);
      }
    });
  }
  return commands.map((_, j) => ({ wall: median(walls[j]!), cpu: gnuTime ? median(cpus[j]!) : NaN }));
}

const probe = join(work, 'rss-probe.mjs');
writeFileSync(probe, `import { appendFileSync } from 'node:fs';\nprocess.on('exit', () => { if (process.env.RSS_OUT) appendFileSync(process.env.RSS_OUT, process.resourceUsage().maxRSS + '\\n'); });\n`);

/** Peak RSS in MB of one run (median of three). */
function rss(cmd: string): number {
  const xs: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (gnuTime) {
      const r = spawnSync('/usr/bin/time', ['-f', '%M', 'sh', '-c', `exec ${cmd}`], { encoding: 'utf8' });
      xs.push(Number(r.stderr.trim().split('\n').pop()) / 1024);
    } else {
      const out = join(work, `rss-${i}.txt`);
      rmSync(out, { force: true });
      spawnSync('sh', ['-c', cmd], { env: { ...process.env, RSS_OUT: out, NODE_OPTIONS: `--import=${probe}` }, stdio: 'ignore' });
      xs.push(Math.max(...readFileSync(out, 'utf8').trim().split('\n').map(Number)) / 1024);
    }
  }
  return median(xs);
}

// Untimed warm-up of every command: page cache, and the first no-op run after indexing.
for (const c of cases) for (const d of [root, base].filter(Boolean) as string[]) spawnSync('sh', ['-c', c.cmd(d)], { stdio: 'ignore', input: '' });

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`runner: ${useHyperfine ? 'hyperfine' : 'interleaved node loop'}, ${runs} runs, load average ${load}, fixture ${work}`);
const cols = base ? ['base', 'new'] : ['new'];
const head = (c: string) => `${c} wall | ${c} × floor | ${c} CPU × floor | ${c} peak RSS`;
console.log(`| command | floor wall (CPU) | ${cols.map(head).join(' | ')} |`);
console.log(`|---|---:|${cols.map(() => '---:|---:|---:|---:').join('|')}|`);
for (const c of cases) {
  const dirs = base ? [base, root] : [root];
  const [floor, ...ts] = time([c.floor, ...dirs.map(c.cmd)]);
  const cells = dirs.map(
    (d, i) =>
      `${ts[i]!.wall.toFixed(3)} s | ${(ts[i]!.wall / floor!.wall).toFixed(2)}× | ${(ts[i]!.cpu / floor!.cpu).toFixed(2)}× | ${rss(c.cmd(d)).toFixed(0)} MB`,
  );
  console.log(`| ${c.name} | ${floor!.wall.toFixed(3)} s (${floor!.cpu.toFixed(3)} s) | ${cells.join(' | ')} |`);
}
if (base) {
  // Same answers: each search's JSON from both checkouts, byte for byte.
  for (const c of cases.filter((c) => c.name.startsWith('search'))) {
    const [a, b] = [base, root].map((d) => execFileSync('sh', ['-c', `${c.cmd(d)} --json`], { encoding: 'utf8' }));
    console.log(`${c.name}: JSON ${a === b ? 'identical' : 'DIFFERS'} between base and new`);
  }
}
if (!keep) rmSync(work, { recursive: true, force: true });
