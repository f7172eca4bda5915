/**
 * The hourly no-op alone: `ragsync index` with nothing changed (both corpora as git sources) against
 * its floor (`node -e 0` + the two `git fetch` it must do), and against another built checkout.
 * Quicker than `npm run bench:guard` (no full index or serve rounds once the fixture exists).
 *
 *   npx tsx bench/noop.bench.ts [--base DIR[,DIR…]] [--runs N] [--fixture DIR]
 *
 * Each DIR is a built checkout (`npm run build` there), e.g. the guard's /tmp/ragsync-guard/<commit>,
 * named in the table by its folder's name; this checkout must be built too. Each checkout indexes its own database and checkouts once (kept
 * with --fixture, so a second call times at once). Turns are interleaved (floor, base, new, …) so a
 * burst of load hits each alike; medians. CPU is user + system of the command and its children
 * (bash's `times`, microseconds), the steadier figure on a shared machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutFolder, indexIdentity } from '../src/config/load.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';
import { takeOption } from './serve-process.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const baseDirs = takeOption(args, '--base', '').split(',').filter(Boolean);
const runs = Number(takeOption(args, '--runs', '15'));
const kept = takeOption(args, '--fixture', '');
const work = kept ? resolve(kept) : mkdtempSync(join(tmpdir(), 'ragsync-noop-'));
if (!kept) process.on('exit', () => rmSync(work, { recursive: true, force: true }));
mkdirSync(work, { recursive: true });

const SOURCES = ['classics', 'bookmarks'];
for (const n of SOURCES) {
  if (!existsSync(join(work, `${n}.git`))) execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${n}.bundle`), join(work, `${n}.git`)]);
}
type Build = { name: string; dir: string; cfg: string; db: string };
const builds: Build[] = [...baseDirs.map((d) => [basename(resolve(d)), resolve(d)]), ['new', root]].map(([name, dir]) => {
  if (!existsSync(join(dir!, 'dist', 'bundle', 'boot.cjs'))) throw new Error(`${dir}: not built (npm run build)`);
  const { $schema: _, ...shipped } = JSON.parse(readFileSync(join(dir!, 'config', 'ragsync.json'), 'utf8')) as { $schema?: string; sources: { name: string }[] };
  const cfg = join(work, `${name}.json`);
  const db = join(work, `${name}.db`);
  writeFileSync(cfg, JSON.stringify({ ...shipped, db: `${name}.db`, checkouts: `${name}-checkouts`, sources: shipped.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
  return { name: name!, dir: dir!, cfg, db };
});
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const noop = (b: Build) => `node ${q(join(b.dir, 'bin', 'ragsync.js'))} index -c ${q(b.cfg)}`;
for (const b of builds) if (!existsSync(b.db)) execFileSync('sh', ['-c', `cd ${q(work)} && ${noop(b)}`], { stdio: ['ignore', 'ignore', 'inherit'] });

const mine = builds[builds.length - 1]!;
const fetches = SOURCES.map(
  (n) =>
    `git -C ${q(join(work, 'new-checkouts', checkoutFolder(n, indexIdentity(mine.db))))} fetch --quiet --prune --no-tags -- ${q(join(work, `${n}.git`))} +refs/heads/main:refs/remotes/origin/main`,
).join(' && ');
const commands: [string, string][] = [['floor', `node -e 0 && ${fetches}`], ...builds.map((b): [string, string] => [b.name, `cd ${q(work)} && ${noop(b)}`])];

/** Wall and CPU (user + system of the command's processes) seconds of one run. */
function timeOnce(cmd: string): { wall: number; cpu: number } {
  const t = process.hrtime.bigint();
  // `times` prints the shell's own and then its children's user and system time (getrusage).
  const out = execFileSync('bash', ['-c', `( ${cmd} ) >/dev/null 2>&1 || exit 9; times`], { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t) / 1e9;
  const secs = (s: string) => s.split(' ').map((x) => Number(x.slice(0, -1).split('m')[0]) * 60 + Number(x.slice(0, -1).split('m')[1]));
  const [u, s] = secs(out.trim().split('\n').pop()!);
  return { wall, cpu: u! + s! };
}

const got = commands.map(() => [] as { wall: number; cpu: number }[]);
for (let i = 0; i <= runs; i++) commands.forEach(([, c], j) => (i ? got[j]!.push(timeOnce(c)) : timeOnce(c)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const med = got.map((xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) }));
const floor = med[0]!;
console.log(`no-op index, ${runs} interleaved runs, medians; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log('| command | wall | CPU | wall ÷ floor | CPU ÷ floor |\n|---|---:|---:|---:|---:|');
commands.forEach(([name], j) => {
  const m = med[j]!;
  console.log(`| ${name} | ${(m.wall * 1000).toFixed(0)} ms | ${(m.cpu * 1000).toFixed(0)} ms | ${(m.wall / floor.wall).toFixed(2)}× | ${(m.cpu / floor.cpu).toFixed(2)}× |`);
});
