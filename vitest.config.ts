import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongFirst from './tests/helpers/sequencer.ts';

const timeouts = { testTimeout: 120_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    // A private PostgreSQL + pgvector for the Postgres suites (or RAGSYNC_TEST_PG_URL's server), then
    // one temp folder for the whole run that every temp folder lands in (removed at its end).
    globalSetup: ['tests/helpers/pg-setup.ts', 'tests/helpers/run-tmp-setup.ts'],
    // The longest files first, also when no earlier run's durations are cached.
    sequence: { sequencer: LongFirst },
    poolOptions: {
      // The unit files share one thread and load their modules once: a fresh process per file cost
      // more than most of them take to run.
      threads: { isolate: false, maxThreads: 1, minThreads: 1 },
      // The end-to-end files each in a process of their own (better-sqlite3 is a native addon; they
      // start servers and daemons). Vitest's default is one fewer than the cores (one at a time on two
      // cores), but these spend much of their time waiting on the processes, git and servers they
      // drive: at least two at once.
      forks: { maxForks: Math.max(2, availableParallelism() - 1), minForks: 1 },
    },
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], pool: 'threads', ...timeouts } },
      { test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts'], pool: 'forks', ...timeouts } },
    ],
  },
});
