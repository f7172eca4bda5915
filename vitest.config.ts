import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // A private PostgreSQL + pgvector for the Postgres suites (or RAGSYNC_TEST_PG_URL's server), then
    // one temp folder for the whole run that every temp folder lands in (removed at its end).
    globalSetup: ['tests/helpers/pg-setup.ts', 'tests/helpers/run-tmp-setup.ts'],
    // better-sqlite3 is a native addon: separate processes are the safe pool.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
