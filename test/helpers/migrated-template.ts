import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDb } from '../../src/db/connect.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { adminQuery } from './pg-admin.js';

// vitest globalSetup: one database migrated once per run, which a test daemon's fresh database is
// copied from (freshEnv({ migrated: true }), what startDaemon asks for): a PostgreSQL database
// made from a template in 30-50 ms against 200-550 ms to create and migrate one, a SQLite file
// copied in a few ms against 80-110 ms. Tests of migrations themselves start from empty databases.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated SQLite file to copy. */
    sqliteTemplate: string;
    /** The migrated PostgreSQL database to use as a template ('' without SVC_TEST_DATABASE_URL). */
    pgTemplate: string;
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
  if (adminUrl) {
    pgTemplate = `svc_t_template_${Date.now().toString(36)}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${pgTemplate}`);
    const url = new URL(adminUrl);
    url.pathname = `/${pgTemplate}`;
    const db = openDb({ client: 'pg', url: url.toString(), filename: '', poolMax: 1 });
    await migrateLatest(db);
    await db.destroy(); // a template must have no connections while it is copied
  }
  project.provide('pgTemplate', pgTemplate);
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (adminUrl && pgTemplate) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${pgTemplate} WITH (FORCE)`);
  };
}

/** Copy the migrated SQLite file into a fresh data directory. */
export function copySqliteTemplate(template: string, dataDir: string): void {
  copyFileSync(template, path.join(dataDir, SQLITE_FILE));
}
