import type { Knex } from 'knex';

// content_tags_window (workspace_id, tag, rank, article_id, category, published_at) begins with
// every column of (workspace_id, tag, rank), and both engines seek a tag's page and its top rank
// in it (PostgreSQL without statistics too: test/content-api/plans-without-stats.test.ts). The
// narrower index only cost writes: a third of the pages an import wrote went to these two.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.dropIndex(['workspace_id', 'tag', 'rank']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.index(['workspace_id', 'tag', 'rank']);
  });
}
