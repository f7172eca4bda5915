// What only the Postgres backend has: ranking in the server (HNSW and exact nearest, BM25 equal to
// SQLite's FTS5), its one-line errors, the advisory lock's release when a holder's session dies,
// and leaving other people's schemas alone. Runs on the test PostgreSQL (tests/helpers/pg-setup.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultAnalyzer, queryTerms } from '../../src/core/text/analyzer.ts';
import { RagsyncError } from '../../src/core/errors.ts';
import { StorageError } from '../../src/storage/errors.ts';
import { openIndex } from '../../src/storage/open.ts';
import { acquireIndexLock } from '../../src/sync/lock.ts';
import type { LockHolder } from '../../src/storage/roles.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadConfig, parseConfig } from '../../src/builtin.ts';
import { HNSW_DEFAULTS } from '../../src/config/schema.ts';
import { createEmbedder } from '../../src/embedding/create.ts';
import { Searcher } from '../../src/search/search.ts';
import type { SearchStore } from '../../src/storage/roles.ts';
import { doc, snapshotIndex, stores } from '../helpers/backends.ts';
import { index } from '../helpers/index-fixture.ts';
import { isStopped, spawnCli, waitFor } from './daemon-helpers.ts';
import { freshSchema, needPostgres, pgQuery, pgUrl } from '../helpers/postgres.ts';
import { xorshift } from '../helpers/rng.ts';
import { tempDir } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

const pg = needPostgres();
const FP = 'test:vec@1:8';

const holder = (token: string): LockHolder => {
  const at = new Date().toISOString();
  return { token, pid: process.pid, host: 'pg-test', procStart: null, acquiredAt: at, heartbeatAt: at };
};

describe.skipIf(!pg.ok)(pg.title('postgres backend'), () => {
  const { sync, search, later } = stores();
  const schema = () => {
    const s = freshSchema();
    later(s.drop);
    return s;
  };
  const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (err: unknown) => err as Error);

  it('nearest: exact equals a brute-force cosine ranking; HNSW finds the same top 10; filters are applied in the server', async () => {
    const { url } = schema();
    const w = sync(url);
    await w.registerEmbedder({ fingerprint: FP, provider: 'test', model: 'v', dims: 8 });
    const rnd = xorshift(7);
    const vec = () => {
      const v = Float32Array.from({ length: 8 }, () => rnd() * 2 - 1);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    for (const source of ['a', 'b']) {
      await w.ensureSource({ name: source, kind: 'dir', url: null, branch: null });
      const d = doc(`${source}.md`, Array.from({ length: 300 }, (_, i) => `${source} passage ${i}`));
      await w.writeDocuments(source, [d]);
      await w.putVectors(FP, d.chunks.map((c) => ({ textHash: c.textHash, vector: vec() })));
    }
    // The end of a run builds the fingerprint's HNSW index once (then inserts maintain it).
    expect(await w.refreshCodePack!(FP)).toBe(true);
    expect(await w.refreshCodePack!(FP)).toBe(false);
    const r = search(url);
    const q = vec();
    const all = await r.vectorsOf(FP, [...(await r.findChunks({ source: 'a' })), ...(await r.findChunks({ source: 'b' }))]);
    expect(all.size).toBe(600);
    const brute = [...all]
      .map(([ref, v]) => ({ ref, score: v.reduce((s, x, j) => s + x * q[j]!, 0) }))
      .sort((x, y) => y.score - x.score || x.ref - y.ref);
    const exact = await r.nearest!({ fingerprint: FP, vector: q, k: 10, exact: true });
    expect(exact.map((h) => h.ref)).toEqual(brute.slice(0, 10).map((h) => h.ref));
    exact.forEach((h, i) => expect(h.score).toBeCloseTo(brute[i]!.score, 5));
    const ann = await r.nearest!({ fingerprint: FP, vector: q, k: 10, efSearch: 200 });
    expect(ann.map((h) => h.ref)).toEqual(exact.map((h) => h.ref));
    // The planner uses the fingerprint's HNSW index, not a scan.
    const [idx] = await pgQuery<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'vectors_hnsw_%'`, [
      new URL(url).searchParams.get('schema'),
    ]);
    expect(idx!.indexdef).toMatch(/USING hnsw \(\(\(embedding\)::vector\(8\)\) vector_cosine_ops\) WITH \(.*\) WHERE \(fingerprint = 'test:vec@1:8'::text\)/);
    // A filter keeps k rows of the wanted source (iterative scan), still in similarity order.
    const onlyB = await r.nearest!({ fingerprint: FP, vector: q, k: 10, filter: { sources: ['b'] } });
    const bRefs = new Set(await r.findChunks({ source: 'b' }));
    expect(onlyB).toHaveLength(10);
    expect(onlyB.every((h) => bRefs.has(h.ref))).toBe(true);
    expect(onlyB.map((h) => h.ref)).toEqual(brute.filter((h) => bRefs.has(h.ref)).slice(0, 10).map((h) => h.ref));
    expect(await r.nearest!({ fingerprint: 'unknown', vector: q, k: 10 })).toEqual([]);
  });

  it('config search.exact and search.efSearch are the reader\'s defaults for nearest', async () => {
    const { url } = schema();
    const w = sync(url);
    const dims = 48;
    const fp = `test:vec@1:${dims}`;
    await w.registerEmbedder({ fingerprint: fp, provider: 'test', model: 'v', dims });
    const rnd = xorshift(11);
    const vec = () => {
      const v = Float32Array.from({ length: dims }, () => rnd() * 2 - 1);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    await w.ensureSource({ name: 'a', kind: 'dir', url: null, branch: null });
    const d = doc('a.md', Array.from({ length: 3000 }, (_, i) => `passage ${i}`));
    await w.writeDocuments('a', [d]);
    await w.putVectors(fp, d.chunks.map((c) => ({ textHash: c.textHash, vector: vec() })));
    await w.refreshCodePack!(fp);
    const open = (search: { exact?: boolean; efSearch?: number }) => {
      const r = openIndex({ db: url, search }, 'search');
      later(() => r.close());
      return r;
    };
    const exact = open({ exact: true });
    const narrow = open({ efSearch: 1 });
    const wide = open({ efSearch: 400 });
    const found = { narrow: 0, wide: 0 };
    const queries = Array.from({ length: 20 }, vec);
    for (const q of queries) {
      const truth = await search(url).nearest!({ fingerprint: fp, vector: q, k: 10, exact: true });
      expect((await exact.nearest!({ fingerprint: fp, vector: q, k: 10 })).map((h) => h.ref)).toEqual(truth.map((h) => h.ref));
      const inTruth = (hits: { ref: number }[]) => hits.filter((h) => truth.some((t) => t.ref === h.ref)).length;
      found.narrow += inTruth(await narrow.nearest!({ fingerprint: fp, vector: q, k: 10 }));
      found.wide += inTruth(await wide.nearest!({ fingerprint: fp, vector: q, k: 10 }));
      // A query's own setting wins over the default.
      expect((await narrow.nearest!({ fingerprint: fp, vector: q, k: 10, exact: true })).map((h) => h.ref)).toEqual(truth.map((h) => h.ref));
    }
    // ef_search 1 keeps one candidate per step of the graph walk: recall falls well short of the wide search's.
    expect(found.wide).toBeGreaterThanOrEqual(190);
    expect(found.narrow).toBeLessThan(found.wide);
  });

  it('config hnsw: the index is built WITH its m and ef_construction; other settings rebuild it at the next refresh, the same ones do not', async () => {
    const { url } = schema();
    const w = sync(url);
    await w.registerEmbedder({ fingerprint: FP, provider: 'test', model: 'v', dims: 8 });
    const rnd = xorshift(5);
    await w.ensureSource({ name: 'a', kind: 'dir', url: null, branch: null });
    const d = doc('a.md', Array.from({ length: 400 }, (_, i) => `passage ${i}`));
    await w.writeDocuments('a', [d]);
    await w.putVectors(FP, d.chunks.map((c) => ({ textHash: c.textHash, vector: Float32Array.from({ length: 8 }, () => rnd() * 2 - 1) })));
    const built = async () =>
      pgQuery<{ indexname: string; options: string[] | null; indexdef: string }>(
        `SELECT i.indexname, x.reloptions AS options, i.indexdef FROM pg_indexes i JOIN pg_namespace n ON n.nspname = i.schemaname
         JOIN pg_class x ON x.relname = i.indexname AND x.relnamespace = n.oid WHERE i.schemaname = $1 AND i.indexname LIKE 'vectors_hnsw_%'`,
        [new URL(url).searchParams.get('schema')],
      );
    // Through the config file's path: parsed, then handed to the writer by openIndex.
    const withConfig = (hnsw?: object) => {
      const s = openIndex(parseConfig({ db: url, sources: [{ name: 'a', kind: 'dir', path: '/nonexistent' }], ...(hnsw ? { hnsw } : {}) }), 'sync');
      later(() => s.close());
      return s;
    };
    expect(await withConfig({ m: 8, efConstruction: 40 }).refreshCodePack!(FP)).toBe(true);
    const [first] = await built();
    expect(first!.options).toEqual(['m=8', 'ef_construction=40']);
    expect(first!.indexdef).toMatch(/USING hnsw .* WITH \(m='?8'?, ef_construction='?40'?\) WHERE \(fingerprint = 'test:vec@1:8'::text\)/);
    expect(await withConfig({ m: 8, efConstruction: 40 }).refreshCodePack!(FP)).toBe(false);
    // Other settings: one index of the same name, with the new options, and searches still use it.
    expect(await withConfig({ m: 12, efConstruction: 48 }).refreshCodePack!(FP)).toBe(true);
    const after = await built();
    expect(after.map((i) => [i.indexname, i.options])).toEqual([[first!.indexname, ['m=12', 'ef_construction=48']]]);
    const q = Float32Array.from({ length: 8 }, () => rnd() * 2 - 1);
    const r = search(url);
    expect((await r.nearest!({ fingerprint: FP, vector: q, k: 10, efSearch: 400 })).map((h) => h.ref)).toEqual(
      (await r.nearest!({ fingerprint: FP, vector: q, k: 10, exact: true })).map((h) => h.ref),
    );
    // No hnsw in the config: the defaults, built once.
    expect(await withConfig().refreshCodePack!(FP)).toBe(true);
    expect((await built())[0]!.options).toEqual([`m=${HNSW_DEFAULTS.m}`, `ef_construction=${HNSW_DEFAULTS.efConstruction}`]);
    expect(await withConfig().refreshCodePack!(FP)).toBe(false);
  });

  it('TLS from the URL: sslmode=require against a server without TLS is one clear line; sslmode=disable works; a missing CA file is named', async () => {
    const { url } = schema();
    await sync(url).recentRuns(1);
    const withParams = (params: Record<string, string>) => {
      const u = new URL(url);
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      return u.toString();
    };
    const noTls = await failure(search(withParams({ sslmode: 'require' })).generation());
    expect(noTls).toMatchObject({ kind: 'unreachable' });
    expect(noTls.message).toMatch(/^the server of postgres:\/\/.* does not accept TLS and the URL asks for it \(sslmode\): enable TLS on the server, or use sslmode=disable/);
    expect(await search(withParams({ sslmode: 'disable' })).generation()).toBeGreaterThanOrEqual(0);
    const noCa = await failure(Promise.resolve().then(() => search(withParams({ sslmode: 'verify-full', sslrootcert: '/nonexistent/ca.pem' }))));
    expect(noCa).toBeInstanceOf(RagsyncError);
    expect(noCa.message).toBe('db: ?sslrootcert= names a file that does not exist: /nonexistent/ca.pem');
    // The CLI says it in one line, non-zero.
    const t = tempDir('ragsync-tls-');
    later(t.cleanup);
    const r = await spawnCli(['copy', '--from', withParams({ sslmode: 'require' }), '--to', join(t.dir, 'x.db')]).done;
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ragsync: the server of postgres:.* does not accept TLS/);
  });

  it('over 2000 dims the approximate index is over halfvec; nearest still answers', async () => {
    const { url, schema: name } = schema();
    const w = sync(url);
    const fp = 'test:big@1:2048';
    await w.registerEmbedder({ fingerprint: fp, provider: 'test', model: 'big', dims: 2048 });
    await w.ensureSource({ name: 's', kind: 'dir', url: null, branch: null });
    const d = doc('a.md', ['one', 'two']);
    await w.writeDocuments('s', [d]);
    const v = (i: number) => Float32Array.from({ length: 2048 }, (_, j) => (j === i ? 1 : 0));
    await w.putVectors(fp, d.chunks.map((c, i) => ({ textHash: c.textHash, vector: v(i) })));
    await w.refreshCodePack!(fp);
    const [idx] = await pgQuery<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'vectors_hnsw_%'`, [name]);
    expect(idx!.indexdef).toMatch(/halfvec\(2048\)\) halfvec_cosine_ops/);
    const r = search(url);
    const [best] = await r.nearest!({ fingerprint: fp, vector: v(1), k: 1 });
    expect(await r.getChunks([best!.ref])).toMatchObject([{ content: 'two' }]);
    expect(best!.score).toBeCloseTo(1, 6);
  });

  it('both backends store a document\'s media type and return it in hits\' and export\'s metadata', async () => {
    const { url } = schema();
    const t = tempDir();
    later(t.cleanup);
    for (const db of [url, join(t.dir, 'index.db')]) {
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'web', url: null, branch: null });
      await w.writeDocuments('n', [{ ...doc('https://x.test/a', ['a page']), mediaType: 'text/html' }, doc('b.md', ['no media type recorded'])]);
      const r = search(db);
      const hits = await r.getChunks((await r.keyword({ tokens: queryTerms(defaultAnalyzer, 'page recorded'), k: 10 })).map((h) => h.ref));
      expect(hits.map((h) => [h.path, h.metadata.mediaType]).sort(), db).toEqual([['b.md', undefined], ['https://x.test/a', 'text/html']]);
      const exported = [];
      const admin = openIndex({ db }, 'admin', { readOnly: true });
      try {
        for await (const row of admin.exportChunks('n')) exported.push([row.path, row.metadata.mediaType]);
      } finally {
        await admin.close();
      }
      expect(exported, db).toEqual([['b.md', undefined], ['https://x.test/a', 'text/html']]);
    }
  });

  it('keyword ranking equals SQLite FTS5 bm25: the same chunks in the same order with the same scores', async () => {
    const { url } = schema();
    const t = tempDir();
    const file = join(t.dir, 'index.db');
    const texts = [
      '甲木参天，脱胎要火。春不容金，秋不容土。',
      '伤官配印，贵不可言。伤官见官，为祸百端。',
      '伤官伤尽复生财，财旺生官福自来。',
      'Message queues decouple producers and consumers; a queue retries failed deliveries.',
      'Retry with exponential backoff when the queue is full.',
      'Consumers acknowledge messages after processing them.',
      // More repeats of a term than a tsvector keeps positions for (256): counted in full, as FTS5 does.
      `${'queue '.repeat(300)}full`,
    ];
    for (const db of [url, file]) {
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      await w.writeDocuments('n', [doc('a.md', texts.slice(0, 3), { heading: '穷通宝鉴 伤官' }), doc('b.md', texts.slice(3), { heading: 'queues' })]);
    }
    const ranked = async (db: string, tokens: string[], headWeight?: number) => {
      const r = search(db);
      const hits = await r.keyword({ tokens, k: 10, headWeight });
      const byRef = new Map((await r.getChunks(hits.map((h) => h.ref))).map((h) => [h.ref, h.id]));
      return hits.map((h) => ({ id: byRef.get(h.ref), score: h.score }));
    };
    const same = async () => {
      for (const [query, head] of [['伤官', 1], ['伤官配印', 2], ['queue retry', 1], ['queue retry', 0], ['consumers message', 3], ['甲木 伤官 queue', 1]] as const) {
        const tokens = queryTerms(defaultAnalyzer, query);
        const want = await ranked(file, tokens, head);
        const got = await ranked(url, tokens, head);
        expect(want.length).toBeGreaterThan(0);
        expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 9));
      }
    };
    await same();
    // A rewritten document's old terms leave the ranking (and its document frequencies) on both.
    for (const db of [url, file]) await sync(db).writeDocuments('n', [doc('a.md', ['伤官 伤官 a new first passage', '甲木'], { heading: '滴天髓' })]);
    await same();
    t.cleanup();
  });

  it('the run lock is released by the server when its holder\'s session dies (a killed process)', async () => {
    const { url } = schema();
    const a = sync(url);
    const b = sync(url);
    await a.startRun({ trigger: 'manual', fingerprint: FP, forced: false });
    expect((await a.tryLock(holder('A'), () => false)).acquired).toBe(true);
    expect((await b.tryLock(holder('B'), () => false)).acquired).toBe(false);
    // End every session that holds our advisory lock, as a crash or a network cut would.
    await pgQuery(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
      AND objid = (hashtext($1)::bigint & 4294967295)::oid`, [new URL(url).searchParams.get('schema')]);
    const taken = await b.tryLock(holder('B'), () => false);
    expect(taken).toMatchObject({ acquired: true, replaced: { token: 'A', host: 'pg-test' } });
    expect(await a.heartbeatLock('A').catch(() => false)).toBe(false);
    await b.releaseLock('B');
  });

  it('one-line errors: refused connection, credentials, missing pgvector, a read-only server, a foreign schema, no index', async () => {
    // Refused: a loopback port nobody listens on; the password never shows.
    const closed = new URL(pgUrl());
    closed.port = '1';
    closed.password = 'sekret';
    const refused = await failure(search(closed.toString()).generation());
    expect(refused).toBeInstanceOf(StorageError);
    expect(refused).toMatchObject({ kind: 'unreachable' });
    expect(refused.message).toMatch(/^cannot connect to postgres:\/\/postgres@127\.0\.0\.1:1\/postgres: connection refused/);
    expect(refused.message).not.toContain('sekret');

    const role = `nologin_${process.pid}`;
    await pgQuery(`DROP ROLE IF EXISTS ${role}`);
    await pgQuery(`CREATE ROLE ${role} NOLOGIN`);
    const asRole = (name: string, db?: string) => {
      const u = new URL(pgUrl());
      u.username = name;
      if (db) u.pathname = `/${db}`;
      return u.toString();
    };
    const auth = await failure(search(asRole(role)).generation());
    expect(auth).toMatchObject({ kind: 'auth' });
    expect(auth.message).toMatch(/refused the credentials/);

    // A database without the extension, owned by a role that may not create it.
    const owner = `owner_${process.pid}`;
    const dbName = `noext_${process.pid}`;
    await pgQuery(`DROP DATABASE IF EXISTS ${dbName}`);
    await pgQuery(`DROP ROLE IF EXISTS ${owner}`);
    await pgQuery(`CREATE ROLE ${owner} LOGIN`);
    await pgQuery(`CREATE DATABASE ${dbName} OWNER ${owner}`);
    try {
      const noExt = await failure(sync(asRole(owner, dbName)).recentRuns(1));
      expect(noExt).toMatchObject({ kind: 'permission' });
      expect(noExt.message).toMatch(/pgvector extension is not enabled .*run "CREATE EXTENSION vector;" there as the database owner or a superuser/);

      // A server that takes no writes (a replica, or read-only by setting) refuses a writer.
      await pgQuery(`ALTER ROLE ${owner} SET default_transaction_read_only = on`);
      await pgQuery(`CREATE EXTENSION vector`).catch(() => {});
      const { url } = schema();
      await sync(url).recentRuns(1); // an index made by the superuser
      const ro = new URL(url);
      ro.username = owner;
      const readOnly = await failure(sync(ro.toString()).recentRuns(1));
      expect(readOnly).toMatchObject({ kind: 'permission' });
      expect(readOnly.message).toMatch(/is read-only \(a replica\?\): point "db" at the primary to index/);
    } finally {
      await pgQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [dbName]);
      await pgQuery(`DROP DATABASE IF EXISTS ${dbName}`);
      await pgQuery(`DROP ROLE IF EXISTS ${owner}`);
      await pgQuery(`DROP ROLE IF EXISTS ${role}`);
    }

    // Someone else's schema is left alone.
    const { url, schema: name } = schema();
    await pgQuery(`CREATE SCHEMA ${name}`);
    await pgQuery(`CREATE TABLE ${name}.theirs (x int)`);
    const foreign = await failure(sync(url).recentRuns(1));
    expect(foreign).toBeInstanceOf(RagsyncError);
    expect(foreign.message).toBe(`schema "${name}" of ${url} holds tables that are not a ragsync index; ragsync leaves them alone: choose another ?schema=`);
    expect(await pgQuery(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`, [name])).toEqual([{ n: 1 }]);

    // Reading an index nobody made.
    const empty = schema();
    const none = await failure(search(empty.url).generation());
    expect(none.message).toMatch(/^no index at postgres:\/\/.* \(schema "t_[0-9a-f]+"\): run "ragsync index" first$/);
  });

  it('a server connection dropped mid-run: the run fails in one line, nothing half-written; the next run resumes without re-embedding', async () => {
    const t = tempDir();
    later(t.cleanup);
    const victim = `victim_${process.pid}`;
    const { url } = schema();
    const db = `${url}&application_name=${victim}`;
    mkdirSync(join(t.dir, 'notes'));
    for (let i = 0; i < 12; i++) writeFileSync(join(t.dir, 'notes', `n${i}.md`), `# note ${i}\n\nParagraph ${i} about topic ${i * 7}.\n`);
    const file = join(t.dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ db, sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] }));
    // Frozen right after its first batch of vectors commits, before any document is written.
    const a = spawnCli(['index', '-c', file], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
    try {
      await waitFor(() => isStopped(a.pid!) || a.exitCode !== null, 'the run to reach its first batch');
      const ended = await pgQuery<{ n: number }>(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1`, [victim]);
      expect(ended[0]!.n).toBeGreaterThan(0);
    } finally {
      a.kill('SIGCONT');
    }
    const done = await a.done;
    expect(done.code).toBe(1);
    // Whichever connection notices first: the run lock's, or the one writing.
    expect(done.stderr).toMatch(/(lost the connection holding the run lock of|lost or cannot reach the database) postgres:\/\/postgres@127\.0\.0\.1/);
    expect(done.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    const mid = await snapshotIndex(db, 'hash:cjk-ngram@1:1024');
    expect(mid.chunks).toEqual([]); // no document half-written
    const next = await index(loadConfig(file));
    expect(next.status).toBe('ok');
    expect(next.sent).toEqual([]); // the committed batch held every text
    expect((await snapshotIndex(db, next.fingerprint)).chunks).toHaveLength(12);
  });

  it('search ranks in the server: no vector scan reaches Node, the results are the same', async () => {
    const t = tempDir();
    later(t.cleanup);
    const { url } = schema();
    mkdirSync(join(t.dir, 'notes'));
    for (let i = 0; i < 12; i++) writeFileSync(join(t.dir, 'notes', `n${i}.md`), `# note ${i}\n\nParagraph ${i} about queues and topic ${i * 7}.\n`);
    const file = join(t.dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ db: url, sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] }));
    const config = loadConfig(file);
    expect((await index(config)).status).toBe('ok');
    const plain = openSearcher(config, undefined, null, { oneShot: true });
    const store = openIndex(config, 'search', { oneShot: true });
    const refuse = () => Promise.reject(new Error('a vector scan reached Node'));
    const guarded: SearchStore = Object.assign(Object.create(store) as SearchStore, { loadVectors: refuse, scanVectors: refuse, streamVectors: refuse });
    const server = new Searcher(guarded, createEmbedder(config.embedder), config, null, { oneShot: true });
    try {
      for (const mode of ['vector', 'hybrid'] as const) {
        for (const opts of [{}, { sources: ['notes'], k: 3 }, { path: 'n1*' }]) {
          const got = await server.search('queues topic 14', { mode, ...opts });
          expect(got.length).toBeGreaterThan(0);
          expect(got).toEqual(await plain.search('queues topic 14', { mode, ...opts }));
        }
      }
      const related = await server.related({ source: 'notes', path: 'n2.md' }, { k: 3 });
      expect(related.map((h) => h.path)).not.toContain('n2.md');
      expect(related).toEqual(await plain.related({ source: 'notes', path: 'n2.md' }, { k: 3 }));
    } finally {
      await plain.close();
      await server.close();
    }
  });

  it('a password in the URL shows in no lock message', async () => {
    const u = new URL(schema().url);
    u.password = 'sekret';
    const db = u.toString();
    const [a, b] = [sync(db), sync(db)];
    const lock = await acquireIndexLock(a, db);
    try {
      const here = await failure(acquireIndexLock(b, db));
      expect(here.message).toMatch(/^index is locked: a run in this process \(pid \d+\) is indexing postgres:\/\/postgres@127\.0\.0\.1/);
      const other = await failure(acquireIndexLock(b, `${db}&from=elsewhere`));
      expect(other.message).toMatch(/^index is locked by another run \(pid \d+ on .*\): postgres:\/\/postgres@127\.0\.0\.1/);
      for (const m of [here.message, other.message]) expect(m).not.toContain('sekret');
    } finally {
      await lock.release();
    }
  });

  it('psql users may change rows: the triggers keep counts whatever their search_path', async () => {
    const { url, schema: name } = schema();
    const w = sync(url);
    await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
    await w.writeDocuments('n', [doc('a.md', ['one two', 'three'])]);
    const meta = () => pgQuery<{ key: string; value: string }>(`SELECT key, value::text FROM ${name}.meta WHERE key IN ('chunks', 'chunk_terms') ORDER BY key`);
    expect(await meta()).toEqual([
      { key: 'chunk_terms', value: '3' },
      { key: 'chunks', value: '2' },
    ]);
    await pgQuery(`DELETE FROM ${name}.documents`);
    expect((await meta()).map((m) => m.value)).toEqual(['0', '0']);
  });
});

