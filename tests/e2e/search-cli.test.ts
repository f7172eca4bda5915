import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { FROM_CLI } from '../helpers/cli.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...FROM_CLI, ...args], { cwd: repo, encoding: 'utf8' });

let fx: Fixture;
beforeAll(async () => {
  fx = await makeFixture();
});
afterAll(() => fx.cleanup());

describe('ragsync search (CLI)', () => {
  it('keeps the JSON contract and adds mode/book/explain', () => {
    const r = cli('search', '甲木寅月用神', '-c', fx.configFile, '--json', '-k', '3', '--book', 'qiongtong', '--explain');
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(out.length).toBeGreaterThan(0);
    for (const key of ['id', 'source', 'path', 'heading', 'content', 'score', 'book', 'chapter', 'explain']) {
      expect(out[0]).toHaveProperty(key);
    }
    expect(out.every((x) => x.path === 'qiongtong/jiamu.md')).toBe(true);
    expect(out[0]!.id).toBe('qiongtong/jiamu.md#0');
  });

  it('--per-doc caps the results of one document; a bad value is a usage error', () => {
    const paths = (...more: string[]) => {
      const r = cli('search', '甲木', '-c', fx.configFile, '--json', ...more);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { path: string }[]).map((x) => x.path);
    };
    expect(new Set(paths('-s', 'classics', '-k', '3', '--per-doc', '1')).size).toBe(3);
    const bad = cli('search', '甲木', '-c', fx.configFile, '--per-doc', '1.5');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/perDoc must be a whole number/);
  });

  it('filters bookmarks by tag and month in keyword mode', () => {
    const r = cli('search', 'SQLite', '-c', fx.configFile, '--json', '--mode', 'keyword', '--tag', 'database', '--month', '2024-01');
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { path: string }[]).map((x) => x.path)).toEqual(['202401/2024-01-05-sqlite.md']);
  });

  it('a tag or month no chunk has is a one-line error naming the known values; known values matching nothing together are no results', () => {
    for (const [flag, value, known] of [
      ['--tag', 'nosuchtag', 'database|distributed|search|sqlite'],
      ['--month', '1999-01', '2024-01|2024-03'],
    ] as const) {
      const r = cli('search', 'SQLite', '-c', fx.configFile, flag, value);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim()).toBe(`ragsync: ${flag.slice(2)} "${value}" is not a known value and no indexed chunk has it (known: ${known})`);
    }
    const both = cli('search', 'SQLite', '-c', fx.configFile, '--tag', 'distributed', '--month', '2024-03');
    expect(both.status, both.stderr).toBe(0);
    expect(both.stdout).toMatch(/^no results/);
  });

  it('prints the explanation in text mode', () => {
    const r = cli('search', '伤官配印', '-c', fx.configFile, '--explain', '-k', '2');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/vector #1 .* keyword #1 .*near-duplicates/);
  });

  it('--explain prints each stage with its time and what it did; with --json on stderr, the array untouched', () => {
    const r = cli('search', '伤官配印', '-c', fx.configFile, '--explain', '-k', '2');
    expect(r.status, r.stderr).toBe(0);
    const stages = [...r.stdout.matchAll(/^stage (\S+) +(\d+\.\d\d) ms {2}(.+)$/gm)].map((m) => [m[1], m[3]]);
    expect(stages.map((s) => s[0])).toEqual(['analyse', 'retrieve', 'weigh', 'fuse', 'collapse', 'rerank', 'present']);
    const did = Object.fromEntries(stages) as Record<string, string>;
    expect(did.analyse).toMatch(/^\d+ query terms?, \d+ expansions?, up to 50 candidates per list/);
    expect(did.retrieve).toMatch(/^keyword [1-9]\d*, vector [1-9]\d*, \d+ expansion lists?, \d+ holding the query as written$/);
    expect(did.weigh).toMatch(/^the query as written(, its holders in keyword order)?$|% of its terms in one passage/);
    expect(did.fuse).toMatch(/^[1-9]\d* candidates? by reciprocal rank fusion \(hybrid\)$/);
    expect(did.collapse).toMatch(/^(\d+) → (\d+) \(near-duplicates merged, at most 3 per document\)$/);
    expect(did.rerank).toBe('no reranker configured');
    expect(did.present).toBe('2 results');
    const j = cli('search', '伤官配印', '-c', fx.configFile, '--explain', '-k', '2', '--json', '--no-dedupe', '--per-doc', '0');
    expect(j.status, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toHaveLength(2);
    const side = JSON.parse(j.stderr.trim().split('\n').at(-1)!) as { stages: { stage: string; ms: number; did: string }[] };
    expect(side.stages.map((s) => s.stage)).toEqual(['analyse', 'retrieve', 'weigh', 'fuse', 'collapse', 'rerank', 'present']);
    expect(side.stages.every((s) => typeof s.ms === 'number' && s.ms >= 0)).toBe(true);
    const fused = Number(/^(\d+)/.exec(side.stages[3]!.did)![1]);
    expect(side.stages[4]!.did).toBe(`${fused} → ${fused}`); // nothing thins the list
  });

  it('ragsync related prints similar documents, itself excluded', () => {
    const r = cli('related', '202401/2024-01-05-sqlite.md', '-s', 'bookmarks', '-c', fx.configFile, '--json', '-k', '2');
    expect(r.status, r.stderr).toBe(0);
    const paths = (JSON.parse(r.stdout) as { path: string }[]).map((x) => x.path);
    expect(paths[0]).toBe('202403/2024-03-02-postgres.md');
    expect(paths).not.toContain('202401/2024-01-05-sqlite.md');
    const missing = cli('related', 'nope.md', '-c', fx.configFile);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/not in the index: nope\.md/);
  });

  it('rejects bad flags with a one-line error and exit 2', () => {
    const bad = cli('search', 'x', '-c', fx.configFile, '--since', '2024-1-1');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/since must be YYYY-MM-DD \(got "2024-1-1"\)/);
    expect(cli('search', 'x', '-c', fx.configFile, '--mode', 'fuzzy').status).toBe(2);
  });
});
