import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDb } from '../../src/db/connect.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { adminQuery } from './pg-admin.js';
import { type TestRun, claimRun, dropDatabases, sweepAbandoned } from './pg-runs.js';

// vitest globalSetup: one database migrated once per run, which a test daemon's fresh database is
// copied from (freshEnv({ migrated: true }), what startDaemon asks for): a PostgreSQL database
// made from a template in 30-50 ms against 200-550 ms to create and migrate one, a SQLite file
// copied in a few ms against 80-110 ms. Tests of migrations themselves start from empty databases.
//
// The PostgreSQL databases the tests make are dropped here at the end of the run, not by each file.
// PostgreSQL 15's DROP DATABASE waits for an immediate checkpoint, which writes out every dirty
// page of the server: dropped by the files, each drop waited up to 3 s for the pages of the other
// fork's live databases, and a file with several daemons waited that many times. At the end of
// the run the dropped databases' pages are discarded unwritten, and the drops, several at once,
// share their checkpoints. A run killed before its end leaves them; the next run on the server
// drops them first (helpers/pg-runs.ts: databases of runs that provably ended, never a live run's).

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated SQLite file to copy. */
    sqliteTemplate: string;
    /** The migrated PostgreSQL database to use as a template ('' without SVC_TEST_DATABASE_URL). */
    pgTemplate: string;
    /** The file listing the PostgreSQL databases to drop at the end of the run (dropLater). */
    pgDropList: string;
    /** This run's id on SVC_TEST_DATABASE_URL's server, which its databases are named after ('' without it). */
    pgRun: string;
  }
}

/** The SQLite file name of a fresh data directory (config/load.ts's default). */
export const SQLITE_FILE = 'svc.sqlite';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-template-'));
  const sqlite = openDb({ client: 'sqlite3', filename: path.join(dir, SQLITE_FILE), poolMax: 1 });
  await migrateLatest(sqlite);
  await sqlite.destroy(); // the last connection closed: the WAL is checkpointed into the file
  project.provide('sqliteTemplate', path.join(dir, SQLITE_FILE));

  const adminUrl = process.env.SVC_TEST_DATABASE_URL;
  let pgTemplate = '';
  let run: TestRun | undefined;
  if (adminUrl) {
    run = await claimRun(adminUrl);
    // Never fails the run: what a sweep leaves, the next one tries again.
    await sweepAbandoned(adminUrl).then(
      (gone) => gone.length > 0 && process.stderr.write(`note: dropped ${gone.length} PostgreSQL test database${gone.length === 1 ? '' : 's'} left by runs that ended without cleaning up\n`),
      (err) => process.stderr.write(`warning: could not drop the test databases left by ended runs: ${(err as Error).message}\n`),
    );
    pgTemplate = run.name('template');
    try {
      await adminQuery(adminUrl, `CREATE DATABASE ${pgTemplate}`);
      const url = new URL(adminUrl);
      url.pathname = `/${pgTemplate}`;
      const db = openDb({ client: 'pg', url: url.toString(), filename: '', poolMax: 1 });
      await migrateLatest(db);
      await db.destroy(); // a template must have no connections while it is copied
    } catch (err) {
      await run.release(); // the run ends here: its session would keep vitest from exiting
      throw err;
    }
  }
  const dropList = path.join(dir, 'pg-drops');
  writeFileSync(dropList, '');
  project.provide('pgTemplate', pgTemplate);
  project.provide('pgDropList', dropList);
  project.provide('pgRun', run?.id ?? '');
  return async () => {
    try {
      await dropAll(existsSync(dropList) ? readFileSync(dropList, 'utf8') : '');
      if (adminUrl && pgTemplate) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${pgTemplate} WITH (FORCE)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await run?.release();
    }
  };
}

/** Have `name` on the server of `adminUrl` dropped when the run ends (from a test fork: one appended line). */
export function dropLater(dropList: string, adminUrl: string, name: string): void {
  appendFileSync(dropList, `${JSON.stringify({ adminUrl, name })}\n`);
}

/** Drops the databases listed by dropLater; every one is tried, the first failure thrown. */
async function dropAll(list: string): Promise<void> {
  await dropDatabases(
    list
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { adminUrl: string; name: string }),
  );
}

/** Copy the migrated SQLite file into a fresh data directory. */
export function copySqliteTemplate(template: string, dataDir: string): void {
  copyFileSync(template, path.join(dataDir, SQLITE_FILE));
}
