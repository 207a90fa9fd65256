import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { migrateLatest, migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { PG_URL, freshConfig } from '../helpers/env.js';

const DROP = '2026-11-29-1500-drop-content-change-notify';

describe.skipIf(!PG_URL)('the content-change NOTIFY trigger (PostgreSQL)', () => {
  it('is gone at latest, and back after rolling its drop back', async () => {
    const { config } = await freshConfig();
    const db = openDb(config.database);
    const triggers = async () =>
      ((await db('pg_trigger').where('tgname', 'like', 'workspaces_content_%').orderBy('tgname').pluck('tgname')) as string[]);
    try {
      await migrateLatest(db);
      expect(await triggers()).toEqual([]);
      while ((await migrationStatus(db)).applied.includes(DROP)) await migrateStep(db, 'down');
      expect(await triggers()).toEqual(['workspaces_content_change', 'workspaces_content_truncate']);
      await migrateLatest(db);
      expect(await triggers()).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
