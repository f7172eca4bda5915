import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // better-sqlite3 is a native addon: separate processes are the safe pool.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
