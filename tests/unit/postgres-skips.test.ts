// Without a PostgreSQL the Postgres suites skip and say why; under CI=true they fail instead, so
// CI can never pass by skipping them. Every suite that uses the test server goes through a title
// that does this (needPostgres, or a backend's title from tests/helpers/backends.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { needPostgres } from '../helpers/postgres.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';

afterEach(() => vi.unstubAllEnvs());

it('no server: the title says why locally, and throws under CI=true', () => {
  vi.stubEnv('RAGSYNC_TEST_PG_URL', '');
  vi.stubEnv('RAGSYNC_TEST_PG_SKIP', 'pgvector is not installed and installing it needs root');
  vi.stubEnv('CI', '');
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const local = needPostgres();
  expect(local.ok).toBe(false);
  expect(local.title('suite')).toBe('suite [skipped: no PostgreSQL with pgvector: pgvector is not installed and installing it needs root (or set RAGSYNC_TEST_PG_URL)]');
  expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/^skipped: no PostgreSQL with pgvector: /));
  stderr.mockRestore();
  vi.stubEnv('CI', 'true');
  expect(() => needPostgres().title('suite')).toThrow('CI=true and no PostgreSQL for "suite": no PostgreSQL with pgvector: pgvector is not installed');
  vi.stubEnv('RAGSYNC_TEST_PG_URL', 'postgres://x@127.0.0.1/db');
  expect(needPostgres()).toMatchObject({ ok: true, reason: '' });
});

it('suites that use the test server skip through a title that fails under CI', () => {
  const dir = join(REPO_ROOT, 'tests', 'e2e');
  const offenders: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.test.ts'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    const usesServer = /freshSchema\(|pgUrl\(|pgQuery\(|BACKENDS\b|RAGSYNC_TEST_PG_URL/.test(src);
    const skipsRight = /\.title\(/.test(src);
    if (usesServer && !skipsRight) offenders.push(f);
  }
  expect(offenders).toEqual([]);
});
