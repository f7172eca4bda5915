import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runCli } from '../helpers/cli.ts';
import { snapshotDb } from '../helpers/index-fixture.ts';
import { sha256 } from '../../src/core/hash.ts';

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let cfgFile: string;
let db: string;

function writeConfig(patch: Record<string, unknown> = {}, source: Record<string, unknown> = {}) {
  writeFileSync(
    cfgFile,
    JSON.stringify({
      db: 'idx/ragsync.db',
      sources: [{ name: 'docs', kind: 'git', url: 'up/upstream.git', include: ['**/*.md'], maxFileBytes: 5000, ...source }],
      ...patch,
    }),
  );
}

beforeEach(() => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  up.write('guide/甲木.md', '# 甲木\n\n## 正月\n\n正月甲木，初春尚有余寒，得丙火温暖，癸水滋润。\n')
    .write('notes/en.md', '# Retry\n\nRetry with exponential backoff and jitter; honour Retry-After.\n')
    .commit('init');
  cfgFile = join(t.dir, 'ragsync.json');
  db = join(t.dir, 'idx', 'ragsync.db');
  writeConfig();
});
afterEach(() => t.cleanup());

describe('ragsync CLI', () => {
  it('index --json prints the contract object; search --json returns results with relative paths', async () => {
    const r = await runCli(['index', '--config', cfgFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'ok', dryRun: false, embedded: 2 });
    expect(typeof out.durationMs).toBe('number');
    expect(out.sources).toEqual([
      expect.objectContaining({
        name: 'docs',
        commit: up.git('rev-parse', 'HEAD'),
        documents: { added: 2, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 },
        chunks: { total: 2, toEmbed: 2, reused: 0 },
      }),
    ]);

    const s = await runCli(['search', '甲木 丙火', '--config', cfgFile, '-k', '1', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const hits = JSON.parse(s.stdout);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ id: 'guide/甲木.md#0', source: 'docs', path: 'guide/甲木.md', heading: '甲木 › 正月' });
    expect(hits[0].content).toContain('正月甲木');
    expect(hits[0].score).toBeGreaterThan(0);
    expect(JSON.stringify(hits)).not.toMatch(/embedding|vector/);
  });

  it('export prints one JSON line per chunk whose textHash is the key of its vector', async () => {
    await runCli(['index', '-c', cfgFile]);
    const r = await runCli(['export', '-c', cfgFile, '--source', 'docs']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2);
    const vectors = snapshotDb(db).vectorHashes;
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['content', 'heading', 'id', 'metadata', 'path', 'source', 'textHash']);
      expect(vectors.has(row.textHash)).toBe(true);
      expect(row.textHash).toBe(sha256(`${row.heading}\n\n${row.content}`));
    }
  });

  it('status --json shows sources, coverage and runs newest first; gc reports what it deleted', async () => {
    await runCli(['index', '-c', cfgFile]);
    up.remove('notes/en.md').commit('rm');
    await runCli(['index', '-c', cfgFile]);
    const st = JSON.parse((await runCli(['status', '-c', cfgFile, '--json'])).stdout);
    expect(st.sources[0]).toMatchObject({ name: 'docs', documents: 1, chunks: 1 });
    expect(st.coverage[0]).toMatchObject({ fingerprint: 'hash:cjk-ngram@1:1024', covered: 1, stored: 2 });
    expect(st.runs.map((r: { id: number }) => r.id)).toEqual([2, 1]);
    expect(st.runs[0].sources[0].documents.deleted).toBe(1);
    const gc = await runCli(['gc', '-c', cfgFile, '--json']);
    expect(JSON.parse(gc.stdout)).toEqual({ vectors: 1 });
  });

  describe('bad input: one line naming the culprit, non-zero exit, nothing indexed lost', () => {
    async function indexed() {
      const r = await runCli(['index', '-c', cfgFile, '--json']);
      expect(r.code).toBe(0);
      return snapshotDb(db);
    }

    it('binary, invalid UTF-8 and oversized files are skipped by name; the rest is indexed', async () => {
      const before = await indexed();
      up.write('bin.md', Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]))
        .write('latin1.md', Buffer.from([0x23, 0x20, 0xe9, 0x74, 0xe9, 0x0a]))
        .write('big.md', '# big\n\n' + '很长的文字。'.repeat(2000))
        .write('guide/甲木.md', '# 甲木\n\n## 正月\n\n正月甲木，初春尚有余寒，得丙火温暖，癸水滋润。庚金劈甲。\n')
        .commit('bad files');
      const r = await runCli(['index', '-c', cfgFile, '--json']);
      expect(r.code).toBe(3);
      const out = JSON.parse(r.stdout);
      expect(out.status).toBe('partial');
      const reasons = out.sources[0].skippedFiles.map((s: { reason: string }) => s.reason).sort();
      expect(reasons).toEqual([
        expect.stringMatching(/^big\.md: \d+ bytes is over maxFileBytes \(5000\), skipped$/),
        'bin.md: binary file (contains NUL bytes), skipped',
        'latin1.md: not valid UTF-8, skipped',
      ]);
      expect(r.stderr).toContain('latin1.md: not valid UTF-8');
      const after = snapshotDb(db);
      expect(after.chunks.find((c) => c.path === 'notes/en.md')).toEqual(before.chunks.find((c) => c.path === 'notes/en.md'));
      expect(after.chunks.some((c) => c.path === 'guide/甲木.md')).toBe(true);
      expect(after.chunks.some((c) => ['bin.md', 'latin1.md', 'big.md'].includes(c.path))).toBe(false);
    });

    it('a bad config names the field and the value', async () => {
      writeConfig({}, { kind: 'svn' });
      const r = await runCli(['index', '-c', cfgFile]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('sources[0].kind');
      expect(r.stderr).toContain('"svn"');

      writeConfig({ embedder: { provider: 'hash', dims: 'many' } });
      const r2 = await runCli(['index', '-c', cfgFile]);
      expect(r2.code).toBe(2);
      expect(r2.stderr).toMatch(/embedder\.dims: .*"many"/);

      writeFileSync(cfgFile, '{ "db": ');
      const r3 = await runCli(['index', '-c', cfgFile]);
      expect(r3.code).toBe(2);
      expect(r3.stderr).toMatch(/ragsync\.json:1:9: not valid JSON: expected a value, found the end of the file/);
    });

    it('an unknown --source and an unknown chunker are usage errors', async () => {
      const r = await runCli(['index', '-c', cfgFile, '--source', 'nope']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe('ragsync: unknown source "nope" (configured: docs)');
      writeConfig({}, { chunker: 'fancy' });
      const r2 = await runCli(['index', '-c', cfgFile]);
      expect(r2.code).toBe(2);
      expect(r2.stderr).toContain('sources[0].chunker');
    });

    it('an unreachable upstream fails the run, keeps the index and still serves searches', async () => {
      const before = await indexed();
      writeConfig({}, { url: 'https://user:s3cret-token@127.0.0.1:9/none.git' });
      const r = await runCli(['index', '-c', cfgFile, '--json']);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.status).toBe('failed');
      expect(out.sources[0].error).toMatch(/^source "docs" \(https:\/\/\*\*\*@127\.0\.0\.1:9\/none\.git\): fetch failed: /);
      expect(r.stdout + r.stderr).not.toContain('s3cret-token');
      expect(readFileSync(db).includes('s3cret-token')).toBe(false);
      expect(snapshotDb(db).chunks).toEqual(before.chunks);
      const s = await runCli(['search', 'backoff', '-c', cfgFile, '--json']);
      expect(JSON.parse(s.stdout)[0].path).toBe('notes/en.md');
    });

    it('an invalid -k is refused before anything runs', async () => {
      const r = await runCli(['search', 'x', '-c', cfgFile, '-k', '0']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('-k must be an integer from 1 to 100 (got "0")');
    });
  });
});
