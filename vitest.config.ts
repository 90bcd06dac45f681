import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end tests start real git, SQLite and Node subprocesses; two cores run two files at once.
    pool: 'forks',
    maxWorkers: 2,
  },
});
