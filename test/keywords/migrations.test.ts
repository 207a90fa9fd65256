import { expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { migrateLatest, migrateStep } from '../../src/db/migrate.js';
import { freshConfig } from '../helpers/env.js';

// knex drops a SQLite column by copying the table; inside a transaction (the default for a
// migration) foreign keys stay on and dropping the old `workspaces` would delete every article.
it('rolling back the keyword defaults of workspaces keeps the rows of every table that references workspaces', async () => {
  const { config } = await freshConfig();
  const db = openDb(config.database);
  await migrateLatest(db);
  await db('workspaces').insert({ id: 'ws_1', name: 'a', website_url: 'https://a', created_at: 'x', updated_at: 'x', keyword_location: '2840' });
  await db('articles').insert({ id: 'art_1', workspace_id: 'ws_1', title: 't', slug: 's', content_type: 'BLOG_POST', body_markdown: '', created_at: 'x', updated_at: 'x' });
  // Down to (and including) this migration, whatever later ones exist.
  for (let undone: string[] = []; !undone.includes('2026-11-23-1601-add-workspace-keyword-defaults'); ) {
    undone = await migrateStep(db, 'down');
    expect(undone).toHaveLength(1);
  }
  expect(await db('articles').count({ n: '*' })).toEqual([{ n: 1 }]);
  expect(Object.keys(await db('workspaces').first())).not.toContain('keyword_location');
  // Foreign keys are enforced again afterwards.
  await migrateLatest(db);
  await db('workspaces').delete();
  expect(await db('articles').count({ n: '*' })).toEqual([{ n: 0 }]);
  await db.destroy();
});
