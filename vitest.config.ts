import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI runs from the prebuilt bundle as users run it: built (strictly) before any test, so
    // every end-to-end test that starts bin/agentdevel.mjs goes through it and a broken bundle
    // fails the suite.
    globalSetup: ['test/setup/build-bundle.ts', 'test/setup/scratch-folder.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end tests start real git, SQLite and Node subprocesses; two cores run two files at once.
    pool: 'forks',
    maxWorkers: 2,
  },
});
