import { defineConfig } from 'vitest/config';

// Tests run two apps on one SQLite file in one process (a second daemon, a CLI beside the
// daemon). node-sqlite3 waits out SQLite's busy timeout on a libuv thread: with the default 4
// threads and 8 connections, waiters can take every thread from the writer they wait for. The
// forks inherit this from the main process (libuv reads it at the first thread-pool use).
process.env.UV_THREADPOOL_SIZE ??= '16';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores here: files run in forks, two at a time.
    pool: 'forks',
    maxWorkers: 2,
    // A fork runs file after file on one module graph instead of importing the app afresh for
    // each file (about 1.4 s a file, 315 s summed over the suite). Sound while nothing a file
    // starts outlives it: helpers register what they start with afterFile (helpers/cleanup.ts;
    // an afterAll called inside a test is ignored), which setup.ts runs at the end of each file.
    isolate: false,
    setupFiles: ['test/helpers/setup.ts'],
    // Says before the run which tests skip without PostgreSQL and how to run them; migrates the
    // database that test daemons' fresh databases are copied from.
    globalSetup: ['test/helpers/skip-notice.ts', 'test/helpers/migrated-template.ts'],
  },
});
