/**
 * Remote embedding under rate limits: a full index of the classics corpus (3,700 chunk texts,
 * ~1.6 M estimated tokens) against the loopback provider (tests/helpers/fake-provider.ts, run in
 * its own process) enforcing a request and a token limit over a sliding window scaled from one
 * minute down to seconds, with the client configured to the same limits.
 *
 *   npx tsx bench/ratelimit.bench.ts     (BENCH_DEBUG=1: use per window; BENCH_ONLY=<text>: some scenarios)
 *
 * Per scenario, for the binding limit:
 * - achieved/allowed: the shortest time the limits allow for this work (a sliding window admits
 *   `limit` at once, then `limit` more per window: (ceil(total / limit) - 1) windows) over the time
 *   the run took, first request to last;
 * - window fill: the mean use of the provider's window, over every window that starts at a request
 *   and ends before the last one (stricter: a request's budget only comes back a window after it
 *   *completed*, so each burst loses about `concurrency` requests' worth);
 * - rate ratio: total / elapsed windows / limit (flattered by the first window's burst);
 * - 429s: must be 0.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseConfig } from '../src/builtin.ts';
import type { Config } from '../src/config/load.ts';
import { createEmbedder } from '../src/embedding/create.ts';

import type { FakeProviderOptions } from '../tests/helpers/fake-provider.ts';
import { runIndex } from '../src/engine/library.ts';

const repoRoot = resolve(import.meta.dirname, '..');
// The repo's sibling "shared" (a checkout in /work/main), or two levels up (a worktree in /work/wt/<name>).
const bundle = [join(repoRoot, '..', 'shared'), join(repoRoot, '..', '..', 'shared')]
  .map((d) => join(d, 'corpora', 'classics.bundle'))
  .find((f) => existsSync(f));
if (!bundle) throw new Error('classics.bundle not found beside the repository (../shared/corpora)');

interface Scenario {
  name: string;
  /** The window that stands for one minute. */
  windowMs: number;
  /** Limits per window. */
  rpm: number;
  tpm: number;
  batchSize: number;
  concurrency: number;
  /** Added by the provider to every reply. */
  latencyMs: number;
  maxDocs?: number;
}

const scenarios: Scenario[] = [
  // Large batches of long Chinese chunks: tokens bind (as with zhipu / siliconflow in production).
  { name: 'token-bound', windowMs: 1000, rpm: 1000, tpm: 250_000, batchSize: 32, concurrency: 8, latencyMs: 20 },
  { name: 'token-bound', windowMs: 5000, rpm: 5000, tpm: 300_000, batchSize: 32, concurrency: 8, latencyMs: 20 },
  // Small batches: requests bind.
  { name: 'request-bound', windowMs: 1000, rpm: 60, tpm: 100_000_000, batchSize: 8, concurrency: 8, latencyMs: 20 },
  { name: 'request-bound', windowMs: 5000, rpm: 80, tpm: 100_000_000, batchSize: 8, concurrency: 8, latencyMs: 20 },
  // One request at a time: what keeping several in flight buys (first 8 documents only).
  { name: 'request-bound, concurrency 1', windowMs: 1000, rpm: 60, tpm: 100_000_000, batchSize: 8, concurrency: 1, latencyMs: 20, maxDocs: 8 },
];

/** Mean requests (or tokens) in the provider's window, over windows starting at each arrival that end before the last. */
function occupancy(at: number[], weight: number[], windowMs: number): number {
  let j = 0;
  let sum = 0;
  const occ: number[] = [];
  const last = at[at.length - 1]!;
  for (let i = 0; i < at.length && at[i]! + windowMs <= last; i++) {
    while (j < at.length && at[j]! < at[i]! + windowMs) sum += weight[j++]!;
    occ.push(sum);
    sum -= weight[i]!;
  }
  return occ.length ? occ.reduce((a, b) => a + b, 0) / occ.length : NaN;
}

interface ProviderStats {
  requests: { at: number; status: number; texts: number; tokens: number }[];
  limited: number;
}

/** The loopback provider in a child process (its own event loop, like a real provider). */
async function startProvider(opts: FakeProviderOptions): Promise<{ child: ChildProcess; baseUrl: string }> {
  const main = join(repoRoot, 'tests', 'helpers', 'fake-provider-main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main, JSON.stringify(opts)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, baseUrl: (JSON.parse(line) as { baseUrl: string }).baseUrl };
}

async function run(s: Scenario, checkout: string) {
  const tmp = mkdtempSync(join(tmpdir(), 'ragsync-bench-rl-'));
  const limits = { rpm: s.rpm, tpm: s.tpm, windowMs: s.windowMs };
  const fake = await startProvider({ dims: 256, vectors: 'digest', latencyMs: s.latencyMs, limits });
  try {
    const cfg = parseConfig({
      db: join(tmp, 'index.db'),
      embedder: {
        provider: 'openai-compatible',
        baseUrl: fake.baseUrl,
        model: 'bench',
        dimensions: 256,
        batchSize: s.batchSize,
        concurrency: s.concurrency,
        rpm: s.rpm,
        tpm: s.tpm,
        maxRetries: 8,
        timeoutMs: 30_000,
      },
      sources: [{ name: 'classics', kind: 'dir', path: join(checkout, 'content', '命'), include: ['**/*.md'] }],
    });
    const embedder = createEmbedder(cfg.embedder, { windowMs: s.windowMs });
    const result = await runIndex(cfg, { embedder, maxDocs: s.maxDocs });
    if (result.status !== 'ok' && result.status !== 'partial') throw new Error(`index ${result.status}: ${result.sources[0]?.error}`);
    const stats = (await (await fetch(fake.baseUrl.replace(/\/v1$/, '/_stats'))).json()) as ProviderStats;
    const ok = stats.requests.filter((r) => r.status === 200).sort((a, b) => a.at - b.at);
    const at = ok.map((r) => r.at);
    const tokens = ok.map((r) => r.tokens);
    const spanMs = at[at.length - 1]! - at[0]!;
    const totalTokens = tokens.reduce((a, b) => a + b, 0);
    const byRequests = occupancy(at, at.map(() => 1), s.windowMs) / s.rpm;
    const byTokens = occupancy(at, tokens, s.windowMs) / s.tpm;
    const binding = byRequests >= byTokens ? 'requests' : 'tokens';
    if (process.env.BENCH_DEBUG) {
      const per: number[] = [];
      at.forEach((a, i) => {
        const w = Math.floor((a - at[0]!) / s.windowMs);
        per[w] = (per[w] ?? 0) + (binding === 'requests' ? 1 : tokens[i]!);
      });
      console.log(`  ${binding} per window: ${per.join(' ')}`);
    }
    const windows = spanMs / s.windowMs;
    const total = binding === 'requests' ? ok.length : totalTokens;
    const limit = binding === 'requests' ? s.rpm : s.tpm;
    const shortestMs = (Math.ceil(total / limit) - 1) * s.windowMs;
    return {
      scenario: s.name,
      window: `${s.windowMs} ms`,
      texts: result.textsEmbedded,
      requests: ok.length,
      tokens: totalTokens,
      seconds: +(spanMs / 1000).toFixed(2),
      binding,
      'achieved/allowed': +(shortestMs / spanMs).toFixed(3),
      'window fill': +(binding === 'requests' ? byRequests : byTokens).toFixed(3),
      'rate ratio': +(total / windows / limit).toFixed(3),
      '429s': stats.requests.filter((r) => r.status === 429).length,
      retries: embedder.stats.retries,
    };
  } finally {
    fake.child.kill('SIGTERM');
    await once(fake.child, 'exit');
    rmSync(tmp, { recursive: true, force: true });
  }
}

// A plain checkout of the tip, indexed as a dir source: the bench measures embedding, not git.
const checkout = mkdtempSync(join(tmpdir(), 'ragsync-bench-classics-'));
try {
  execFileSync('git', ['clone', '-q', bundle, checkout]);
  const rows = [];
  // BENCH_ONLY=5000 runs the scenarios whose name or window contains that text.
  for (const s of scenarios.filter((x) => !process.env.BENCH_ONLY || `${x.name} ${x.windowMs}`.includes(process.env.BENCH_ONLY))) {
    console.log(
      `${s.name}: window ${s.windowMs} ms = 1 min; per window rpm ${s.rpm}, tpm ${s.tpm}; batch ${s.batchSize}, concurrency ${s.concurrency}, provider latency ${s.latencyMs} ms`,
    );
    rows.push(await run(s, checkout));
  }
  console.table(rows);
} finally {
  rmSync(checkout, { recursive: true, force: true });
}
