import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { hashEmbed } from '../../src/embedding/hash.ts';
import { decodeVector } from '../../src/storage/sqlite/blob.ts';

import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { sha256 } from '../../src/core/hash.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { captureLog } from '../helpers/remote.ts';
import { writeCorpus } from '../helpers/corpus.ts';
import { endianness } from 'node:os';
import { runIndex } from '../../src/engine/library.ts';
import { FROM_CLI_ANYWHERE } from '../helpers/cli.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const KEY = 'sk-sync-test-a1b2c3d4e5f6a7b8';
const DIMS = 16;
const FP = `openai-compatible:fake-model:${DIMS}`;
let tmp: string;
let fake: FakeProvider;

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-providers-'));
  writeCorpus(join(tmp, 'docs'), 12, 3);
  fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY });
});
afterEach(async () => {
  await fake.close();
  rmSync(tmp, { recursive: true, force: true });
});

function configJson(extra: Record<string, unknown> = {}) {
  return {
    db: join(tmp, 'index.db'),
    embedder: {
      provider: 'openai-compatible',
      baseUrl: fake.baseUrl,
      model: 'fake-model',
      dimensions: DIMS,
      apiKeyEnv: 'RAGSYNC_FAKE_KEY',
      batchSize: 4,
      maxRetries: 1,
      breakerThreshold: 2,
      timeoutMs: 2000,
      ...extra,
    },
    sources: [{ name: 'docs', kind: 'dir', path: join(tmp, 'docs') }],
  };
}

/** What the database holds, read directly: vectors by text hash, documents and the chunks' text hashes. */
function dbContents(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const vectors = new Map(
      (db.prepare('SELECT text_hash, embedding FROM vectors WHERE fingerprint = ?').all(FP) as { text_hash: string; embedding: Buffer }[]).map(
        (r) => [r.text_hash, decodeVector(r.embedding)],
      ),
    );
    const docs = db.prepare('SELECT id, path FROM documents ORDER BY path').all() as { id: number; path: string }[];
    const chunkHashes = db.prepare('SELECT document_id AS doc, text_hash AS h, text FROM chunks').all() as { doc: number; h: string; text: string }[];
    const runs = db.prepare('SELECT status, error FROM runs ORDER BY id').all() as { status: string; error: string | null }[];
    return { vectors, docs, chunkHashes, runs };
  } finally {
    db.close();
  }
}

describe('a sync against a failing provider', () => {
  it('ends the run when the circuit opens, keeps whole batches only, and the next run embeds only what is missing', async () => {
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const cfg: Config = parseConfig(configJson());
    fake.queue({ kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' });
    fake.fallback = { kind: '500' };
    const { log, lines } = captureLog();
    const first = await runIndex(cfg, { log });

    expect(first.status).toBe('failed');
    expect(first.sources[0]!.status).toBe('failed');
    expect(first.sources[0]!.error).toMatch(/2 failed requests in a row, giving up .*HTTP 500.*next run resumes/);
    const total = first.sources[0]!.planned.texts;
    expect(total).toBeGreaterThan(12);

    const served1 = fake.served.flatMap((r) => r.inputs);
    expect(served1).toHaveLength(12); // three full batches of 4
    let db = dbContents(cfg.db);
    // Exactly the vectors of the batches that succeeded, each the right vector for its text.
    expect(new Set(db.vectors.keys())).toEqual(new Set(served1.map((t) => sha256(t))));
    for (const t of served1) expect(Array.from(db.vectors.get(sha256(t))!)).toEqual(Array.from(hashEmbed(t, DIMS)));
    // Every document written has a vector for every chunk; the rest are not there yet.
    for (const c of db.chunkHashes) expect(db.vectors.has(c.h)).toBe(true);
    expect(db.docs.length).toBeLessThan(12);
    expect(db.runs).toEqual([{ status: 'failed', error: expect.stringContaining('giving up') }]);
    expect(lines.join('\n')).not.toContain(KEY);

    // The provider recovers: the next run sends only the texts still missing.
    fake.fallback = { kind: 'ok' };
    const before = fake.requests.length;
    const second = await runIndex(cfg, { log });
    expect(second.status).toBe('ok');
    const served2 = fake.requests.slice(before).flatMap((r) => r.inputs);
    expect(served2.filter((t) => served1.includes(t))).toEqual([]);
    expect(served1.length + served2.length).toBe(total);
    db = dbContents(cfg.db);
    expect(db.docs).toHaveLength(12);
    expect(db.vectors.size).toBe(total);
    for (const c of db.chunkHashes) expect(Array.from(db.vectors.get(c.h)!)).toEqual(Array.from(hashEmbed(c.text, DIMS)));
    expect(db.runs.map((r) => r.status)).toEqual(['failed', 'ok']);

    // Nothing changed: a third run makes no call.
    const before3 = fake.requests.length;
    expect((await runIndex(cfg, { log })).status).toBe('ok');
    expect(fake.requests.length).toBe(before3);
    delete process.env.RAGSYNC_FAKE_KEY;
  });

  it('writes nothing of a batch the provider answers wrongly', async () => {
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const cfg = parseConfig(configJson());
    fake.queue({ kind: 'ok' }, { kind: 'wrong-dims' });
    const r = await runIndex(cfg);
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toContain(`config says dimensions ${DIMS}; batch rejected`);
    const db = dbContents(cfg.db);
    const good = fake.requests.filter((q) => q.behaviour === 'ok' && q.status === 200).flatMap((q) => q.inputs);
    const bad = fake.requests.find((q) => q.behaviour === 'wrong-dims')!.inputs;
    // The batches answered well (the ones in flight alongside included) are stored; nothing of the bad one.
    expect(new Set(db.vectors.keys())).toEqual(new Set(good.map((t) => sha256(t))));
    for (const t of bad) expect(db.vectors.has(sha256(t))).toBe(false);
    expect(db.runs[0]!.status).toBe('failed');
    delete process.env.RAGSYNC_FAKE_KEY;
  });
});

describe('switching models', () => {
  it('embeds into the new fingerprint; the old vectors stay until gc --drop-other-fingerprints', async () => {
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const a = parseConfig(configJson());
    const first = await runIndex(a);
    expect(first.status).toBe('ok');
    const total = first.sources[0]!.planned.texts;
    const b = parseConfig(configJson({ model: 'fake-model-2' }));
    const before = fake.requests.length;
    const second = await runIndex(b);
    expect(second.fingerprint).toBe(`openai-compatible:fake-model-2:${DIMS}`);
    expect(fake.requests.slice(before).flatMap((q) => q.inputs)).toHaveLength(total);
    expect(fake.requests.slice(before).every((q) => q.model === 'fake-model-2')).toBe(true);
    const store = new SqliteIndex(b.db);
    try {
      const coverage = (await store.status()).coverage.map((c) => [c.fingerprint, c.covered, c.stored]);
      expect(coverage).toEqual([
        [FP, total, total],
        [second.fingerprint, total, total],
      ]);
      expect(await store.gc()).toEqual({ vectors: 0 });
      // Each run packed its fingerprint's codes (on little-endian machines); gc keeps only the kept one's.
      const packs = () => store.db.prepare('SELECT fingerprint FROM vector_code_packs ORDER BY fingerprint').pluck().all();
      const le = endianness() === 'LE';
      expect(packs()).toEqual(le ? [FP, second.fingerprint].sort() : []);
      expect(await store.gc({ keepOnly: second.fingerprint })).toEqual({ vectors: total });
      expect((await store.status()).coverage.map((c) => c.fingerprint)).toEqual([second.fingerprint]);
      expect(packs()).toEqual(le ? [second.fingerprint] : []);
      expect(store.db.prepare('SELECT DISTINCT fingerprint FROM vector_codes').pluck().all()).toEqual([second.fingerprint]);
    } finally {
      await store.close();
    }
    delete process.env.RAGSYNC_FAKE_KEY;
  });
});

describe('a sync with batches in flight at once (embedder.concurrency)', () => {
  it('keeps several batches in flight, stores every vector right, writes every document', async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY, latencyMs: 40 });
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const cfg = parseConfig(configJson({ concurrency: 4, batchSize: 2 }));
    const r = await runIndex(cfg);
    expect(r.status).toBe('ok');
    expect(fake.maxActive).toBeGreaterThan(1);
    expect(fake.maxActive).toBeLessThanOrEqual(4);
    // Full batches except possibly the last.
    const sizes = fake.requests.map((q) => q.inputs.length);
    expect(sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
    const db = dbContents(cfg.db);
    expect(db.docs).toHaveLength(12);
    expect(db.vectors.size).toBe(r.sources[0]!.planned.texts);
    for (const c of db.chunkHashes) expect(Array.from(db.vectors.get(c.h)!)).toEqual(Array.from(hashEmbed(c.text, DIMS)));
    delete process.env.RAGSYNC_FAKE_KEY;
  });

  it('on failure lets the batches in flight finish and store, then stops; the next run fills in the rest', async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY, latencyMs: 20 });
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const cfg = parseConfig(configJson({ concurrency: 3, batchSize: 2, maxRetries: 0, breakerThreshold: 50 }));
    fake.queue({ kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }, { kind: '400' });
    const r = await runIndex(cfg);
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toContain('HTTP 400');
    const served = fake.served.flatMap((q) => q.inputs);
    let db = dbContents(cfg.db);
    expect(new Set(db.vectors.keys())).toEqual(new Set(served.map((t) => sha256(t))));
    for (const c of db.chunkHashes) expect(db.vectors.has(c.h)).toBe(true);
    const before = fake.requests.length;
    expect((await runIndex(cfg)).status).toBe('ok');
    const again = fake.requests.slice(before).flatMap((q) => q.inputs);
    expect(again.filter((t) => served.includes(t))).toEqual([]);
    db = dbContents(cfg.db);
    expect(db.docs).toHaveLength(12);
    delete process.env.RAGSYNC_FAKE_KEY;
  });

  it('stops when the signal aborts, with no batch half-stored', async () => {
    await fake.close();
    fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY, latencyMs: 30 });
    process.env.RAGSYNC_FAKE_KEY = KEY;
    const cfg = parseConfig(configJson({ concurrency: 2, batchSize: 2 }));
    const ac = new AbortController();
    const r = await runIndex(cfg, { signal: ac.signal }, (p) => {
      if (p.type === 'embedded' && p.done >= 6) ac.abort();
    });
    expect(r.status).toBe('aborted');
    const db = dbContents(cfg.db);
    const served = new Set(fake.served.flatMap((q) => q.inputs).map((t) => sha256(t)));
    for (const h of db.vectors.keys()) expect(served.has(h)).toBe(true);
    for (const c of db.chunkHashes) expect(db.vectors.has(c.h)).toBe(true);
    expect(db.vectors.size % 2).toBe(0);
    delete process.env.RAGSYNC_FAKE_KEY;
  });
});

function runCli(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const env: Record<string, string | undefined> = { ...process.env, RAGSYNC_FAKE_KEY: undefined, RAGSYNC_LOG_LEVEL: 'debug', ...opts.env };
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [...FROM_CLI_ANYWHERE, ...args], {
      cwd: opts.cwd,
      env: env as NodeJS.ProcessEnv,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

describe('the CLI with a remote provider', () => {
  it('fails non-zero, resumes, searches with the fingerprint named, and never lets the key out', async () => {
    const cfgFile = join(tmp, 'ragsync.json');
    writeFileSync(cfgFile, JSON.stringify(configJson()));
    // The key lives in .env in the working directory, not in the environment.
    writeFileSync(join(tmp, '.env'), `RAGSYNC_FAKE_KEY=${KEY}\n`);
    const outputs: string[] = [];

    fake.queue({ kind: 'ok' }, { kind: 'ok' });
    fake.fallback = { kind: '503' };
    const r1 = await runCli(['index', '-c', cfgFile, '--rpm', '600', '--tpm', '1000000'], { cwd: tmp });
    outputs.push(r1.stdout, r1.stderr);
    expect(r1.code).toBe(1);
    expect(r1.stdout).toMatch(/failed/);

    fake.fallback = { kind: 'ok' };
    const r2 = await runCli(['index', '-c', cfgFile, '--json'], { cwd: tmp });
    outputs.push(r2.stdout, r2.stderr);
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.stdout)).toMatchObject({ status: 'ok', fingerprint: FP });

    const r3 = await runCli(['search', '-c', cfgFile, '第3篇第1节'], { cwd: tmp });
    outputs.push(r3.stdout, r3.stderr);
    expect(r3.code).toBe(0);
    expect(r3.stdout).toContain(`(embedder ${FP})`);
    expect(r3.stderr).toContain(FP);
    const r3j = await runCli(['search', '-c', cfgFile, '--json', '第3篇第1节'], { cwd: tmp });
    outputs.push(r3j.stdout, r3j.stderr);
    expect(Array.isArray(JSON.parse(r3j.stdout))).toBe(true);

    const status = await runCli(['status', '-c', cfgFile], { cwd: tmp });
    outputs.push(status.stdout, status.stderr);
    expect(status.stdout).toMatch(new RegExp(`\\* ${FP.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s+\\d+/\\d+ texts covered`));

    // A wrong key from the environment (which wins over .env): the provider echoes it; we must not.
    const wrong = 'sk-wrong-zyxwvu9876543210';
    const r4 = await runCli(['search', '-c', cfgFile, 'anything'], { cwd: tmp, env: { RAGSYNC_FAKE_KEY: wrong } });
    outputs.push(r4.stdout, r4.stderr);
    expect(r4.code).toBe(1);
    expect(r4.stderr).toMatch(/^ragsync: openai-compatible fake-model: HTTP 401: Incorrect API key provided: \[redacted\]/m);

    const everything = outputs.join('\n');
    expect(everything.split('\n').filter((l) => l.startsWith('{')).length).toBeGreaterThan(5); // log lines were captured
    for (const secret of [KEY, wrong]) {
      expect(everything).not.toContain(secret);
      for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) {
        const p = join(tmp, f);
        if (existsSync(p)) expect(readFileSync(p).includes(Buffer.from(secret))).toBe(false);
      }
    }
  });
});
