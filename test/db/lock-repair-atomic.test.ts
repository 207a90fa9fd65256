import { describe, expect, it } from 'vitest';
import { isPostgres, openDb } from '../../src/db/connect.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { PG_URL, freshConfig } from '../helpers/env.js';

describe(`repairing knex's lock table (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  // A process that dies between emptying the table and writing its one row must leave it as it found it.
  it('is one transaction: a repair that fails halfway leaves the rows it found', async () => {
    const { config } = await freshConfig();
    const db = openDb(config.database);
    try {
      await migrateLatest(db);
      await db('knex_migrations_lock').insert({ is_locked: 0 });
      if (isPostgres(db)) {
        await db.raw(`CREATE FUNCTION refuse_lock_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
        await db.raw('CREATE TRIGGER refuse_lock_row BEFORE INSERT ON knex_migrations_lock FOR EACH ROW EXECUTE FUNCTION refuse_lock_row()');
      } else {
        await db.raw(`CREATE TRIGGER refuse_lock_row BEFORE INSERT ON knex_migrations_lock BEGIN SELECT RAISE(ABORT, 'refused'); END`);
      }
      await expect(migrateLatest(db)).rejects.toThrow('refused');
      expect((await db('knex_migrations_lock').select('is_locked')).map((r) => Number(r.is_locked))).toEqual([0, 0]);
    } finally {
      await db.destroy();
    }
  });
});
