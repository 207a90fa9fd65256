import type { Knex } from 'knex';

// Related posts rank a tag's newest posts by shared tags, then category, then date. With the
// category and date beside the rank in one index, each tag's window is read from the index alone
// (no row of content_tags or content_index per candidate). Nullable: a daemon of the previous
// version still inserts tags without it (the reader looks those up in content_index). The
// narrower (workspace_id, tag, rank) index stays: PostgreSQL without statistics takes a tag's
// max(rank) from it as one seek, and from the wider one it read the whole tag instead.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.string('category', 40).nullable();
  });
  await knex.schema.alterTable('content_tags', (t) => {
    t.index(['workspace_id', 'tag', 'rank', 'article_id', 'category', 'published_at'], 'content_tags_window');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.dropIndex([], 'content_tags_window');
  });
  await knex.schema.alterTable('content_tags', (t) => {
    t.dropColumn('category');
  });
}

// SQLite rebuilds the table to drop a column, safely only outside a transaction (see 2026-11-23-1700).
export const config = { transaction: false };
