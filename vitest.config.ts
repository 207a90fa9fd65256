import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores here: files run in forks, two at a time.
    pool: 'forks',
    maxWorkers: 2,
    setupFiles: ['test/helpers/setup.ts'],
  },
});
