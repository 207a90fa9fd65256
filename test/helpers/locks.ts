import path from 'node:path';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { PG_MIGRATION_LOCK_KEY, sqliteMigrationLockFile } from '../../src/db/locks.js';

/**
 * Hold svc's migration lock from outside, the way another migrating process would: PostgreSQL's
 * advisory lock, or the write lock on the SQLite sidecar file (taken with the plain driver).
 */
export async function holdMigrationLock(env: Record<string, string>): Promise<{ release(): Promise<void> }> {
  if (env.SVC_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.SVC_DATABASE_URL });
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
    let released = false;
    return { release: async () => void (released || ((released = true), await client.end())) };
  }
  const file = sqliteMigrationLockFile(path.join(env.SVC_DATA_DIR, 'svc.sqlite'));
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(d)));
  });
  await new Promise<void>((resolve, reject) => db.exec('BEGIN IMMEDIATE', (err) => (err ? reject(err) : resolve())));
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await new Promise<void>((resolve) => db.exec('ROLLBACK', () => db.close(() => resolve())));
    },
  };
}
