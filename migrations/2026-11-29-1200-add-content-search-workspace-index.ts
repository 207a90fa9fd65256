import type { Knex } from 'knex';

// A search on PostgreSQL for a word found in most articles of the whole installation was planned
// as a scan of every workspace's search rows (the GIN index would return nearly all of them):
// its cost grew with the other workspaces. With an index on workspace_id the planner can start
// from the workspace's rows, or combine both indexes (BitmapAnd), whichever its statistics favour.
// SQLite's searches start from the FTS5 match (search-store.ts) and do not use it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_search', (t) => {
    t.index(['workspace_id'], 'content_search_workspace');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_search', (t) => {
    t.dropIndex(['workspace_id'], 'content_search_workspace');
  });
}
