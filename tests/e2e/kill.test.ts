// A child running a large index is SIGKILLed at many points (reproducible by seed: KILL_SEED=n).
// After each kill: the file passes integrity_check, the index shows all of the run's documents or
// none of them, the dead run's lock is taken over, and the next
// run converges to the state of an uninterrupted run while embedding only what was not stored.
// On every backend (one body): a Postgres index gets fewer kill points (each run costs more there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';

import { classicsUpstream, indexState, prng, spawnCli, writeConfig, type DbState, hasClassics, classicsCorpus } from './daemon-helpers.ts';
import { BACKENDS, type Backend } from '../helpers/backends.ts';
import { runIndex } from '../../src/engine/library.ts';

const SEED = Number(process.env.KILL_SEED ?? 20261122);
const FAILPOINT_KILLS = 7;
const RANDOM_KILLS = 4;

let tmp: string;
let url: string;

beforeAll(() => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-kill-'));
  url = classicsUpstream(tmp);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The kill plan for a seed: exact failpoints first, then kills after random delays. */
function killPlan(seed: number, batches: number, kills = { failpoints: FAILPOINT_KILLS, random: RANDOM_KILLS }): { label: string; env: Record<string, string>; delayMs?: number }[] {
  const rand = prng(seed);
  const plan: { label: string; env: Record<string, string>; delayMs?: number }[] = [];
  for (let i = 0; i < kills.failpoints; i++) {
    const name = rand() < 0.6 ? 'after-vectors' : 'in-documents';
    // in-documents is passed once per document, inside the one transaction that writes them all:
    // keep its n small enough to be reached.
    const max = name === 'after-vectors' ? batches : 8;
    const n = 1 + Math.floor(rand() * max);
    plan.push({ label: `${name}:${n}`, env: { RAGSYNC_FAILPOINT: `${name}:${n}` } });
  }
  for (let i = 0; i < kills.random; i++) {
    // Counted from the run's "planned" log line: the embedding and writing take 0.5–1 s.
    const delayMs = Math.floor(rand() * 450);
    plan.push({ label: `${delayMs} ms into the run`, env: {}, delayMs });
  }
  return plan;
}

describe.each(BACKENDS)('$name', (backend: Backend) => {
describe.skipIf(!hasClassics || !backend.ok)(backend.title(classicsCorpus.title(`SIGKILL during a large index (seed ${SEED})`)), () => {
  const places: { cleanup: () => Promise<void> }[] = [];
  /** A fresh index location of the backend (a file in `dir`, or a new schema). */
  const place = (dir: string) => {
    if (backend.name === 'sqlite') return undefined;
    const at = backend.fresh();
    places.push(at);
    return at.db;
  };
  afterAll(async () => {
    for (const p of places) await p.cleanup();
  });

  it('recovers at every kill point: integrity, lock, convergence, no re-embedding', async () => {
    const ref = join(tmp, `reference-${backend.name}`);
    mkdirSync(ref);
    const refConfig = writeConfig(ref, { url, db: place(ref) });
    const first = await runIndex(loadConfig(refConfig.file));
    expect(first.status, JSON.stringify(first.sources.map((s) => s.error))).toBe('ok');
    const reference: DbState = await indexState(refConfig.db);
    expect(reference.distinctTexts).toBeGreaterThan(300);
    const plan = killPlan(SEED, first.requests, backend.name === 'sqlite' ? undefined : { failpoints: 3, random: 1 });
    expect(plan.length).toBeGreaterThanOrEqual(backend.name === 'sqlite' ? 10 : 4);
    const summary: string[] = [];
    for (const [i, point] of plan.entries()) {
      const dir = join(tmp, `kill-${backend.name}-${i}`);
      mkdirSync(dir);
      const { file, db } = writeConfig(dir, { url, db: place(dir) });
      const child = spawnCli(['index', '-c', file, '--json'], point.env);
      let timer: NodeJS.Timeout | undefined;
      let stderr = '';
      if (point.delayMs !== undefined) {
        child.stderr!.on('data', (b: Buffer) => {
          stderr += b.toString();
          if (!timer && stderr.includes('"msg":"planned"')) timer = setTimeout(() => child.kill('SIGKILL'), point.delayMs);
        });
      }
      const killed = await child.done;
      clearTimeout(timer);
      const where = `kill ${i} (${point.label}, seed ${SEED})`;
      // A failpoint always fires; a random kill may land after the run ended.
      if (point.delayMs === undefined) expect(killed.signal, where).toBe('SIGKILL');

      const after = await indexState(db);
      expect(after.integrity, where).toBe('ok');
      // The documents go in with one transaction: a kill leaves none of them or all of them.
      if (after.chunks.length) expect(after.chunks, where).toEqual(reference.chunks);
      // The lock a killed run held is still there, naming the dead process…
      if (after.lock) expect(after.lock.pid, where).toBe(child.pid);

      // …and the next run (here in this process: a spawn costs a second of tsx start-up) takes it
      // over instead of failing with "locked".
      const result = await runIndex(loadConfig(file));
      expect(result.status, `${where}: ${result.sources.map((s) => s.error).join('; ')}`).toBe('ok');

      const final = await indexState(db);
      expect(final.integrity, where).toBe('ok');
      expect(final.chunks, where).toEqual(reference.chunks);
      expect(final.referencedVectors, where).toEqual(reference.referencedVectors);
      // Nothing stored before the kill is embedded again.
      expect(result.textsEmbedded, where).toBe(final.distinctTexts - after.vectors);
      expect(final.lock, where).toBeNull();
      expect(final.runs.filter((r) => r.status === 'running'), where).toEqual([]);
      if (killed.signal === 'SIGKILL' && after.runs.length) {
        expect(final.runs.find((r) => r.id === after.runs.at(-1)!.id)?.status, where).toMatch(/aborted|ok/);
      }
      summary.push(`${point.label}: ${killed.signal ?? `exit ${killed.code}`}, ${after.vectors}/${final.distinctTexts} vectors kept, ${after.chunks.length} chunks, resume embedded ${result.textsEmbedded}`);
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(`kill points (seed ${SEED}):\n  ${summary.join('\n  ')}`);
  });
});
});
