import type { Knex } from 'knex';

// content_tags was keyed (workspace_id, tag, article_id), so every post a publish added went to its
// tag's place in the key as well as in the two rank indexes: a batch of 250 posts over 300 tags
// wrote about 300 pages of each. Keyed (article_id, tag), the posts of a batch (whose ids sort by
// when they were made) share a few pages of the key, and the article_id index (removal, ON DELETE
// CASCADE) is the key's own prefix. Old daemons insert the same rows and find a tag of an article
// by all three columns, which the new key serves.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.dropPrimary();
  });
  await knex.schema.alterTable('content_tags', (t) => {
    t.primary(['article_id', 'tag']);
    t.dropIndex(['article_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_tags', (t) => {
    t.dropPrimary();
  });
  await knex.schema.alterTable('content_tags', (t) => {
    t.primary(['workspace_id', 'tag', 'article_id']);
    t.index(['article_id']);
  });
}
