import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { closeDb, openDb } from '../../src/db/connect.js';
import { migrateStep, rollbackLastBatch } from '../../src/db/migrate.js';
import { freshEnv } from '../helpers/env.js';

const FUTURE = '2099-01-01-0000-add-future-notes';

it('rollback never shows confirm a batch holding a migration this svc does not know (a newer svc migrating meanwhile)', async () => {
  const { dir, env } = await freshEnv({}, { migrated: true });
  const db = openDb(loadConfig({ env, cwd: dir }).database);
  try {
    await migrateStep(db, 'down');
    await migrateStep(db, 'up'); // the last batch: one migration
    let fired = false;
    db.on('query', (q: { sql: string }) => {
      // A newer svc records its migration right after the first read of knex's lock table.
      if (!fired && /is_locked/.test(q.sql) && /^select/i.test(q.sql)) {
        fired = true;
        void db('knex_migrations').insert({ name: FUTURE, batch: 99, migration_time: new Date() }).then(() => undefined);
      }
    });
    const seen: string[][] = [];
    const err = await rollbackLastBatch(db, { confirm: async (b) => void seen.push(b) }).catch((e: { code?: string }) => e);
    expect(fired).toBe(true);
    expect((err as { code?: string }).code).toBe('database_newer');
    expect(seen.flat()).not.toContain(FUTURE);
  } finally {
    await closeDb(db);
  }
});
