import type { Knex } from 'knex';

// content_tags was keyed (workspace_id, tag, article_id), so every post a publish added went to its
// tag's place in the key as well as in the two rank indexes: a batch of 250 posts over 300 tags
// wrote about 300 pages of each. Keyed (article_id, tag), the posts of a batch (whose ids sort by
// when they were made) share a few pages of the key, and the article_id index (removal, ON DELETE
// CASCADE) is the key's own prefix. Old daemons insert the same rows and find a tag of an article
// by all three columns, which the new key serves. Swapping a key locks the table until the
// migration commits, reads included (PostgreSQL: about 1.5 s for 500,000 tag rows): an older
// daemon's tag pages and related posts wait that long once.
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
