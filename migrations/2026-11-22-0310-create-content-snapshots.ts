import type { Knex } from 'knex';

// Headless snapshots (issue 3). Lists read only the slim index rows; the full Article JSON sits
// in its own table. Ranks are dense positions (0 = oldest) in publishedAt, id order, per
// workspace, per category and per tag, so a page at any depth is an index seek (no OFFSET).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('content_index', (t) => {
    t.string('article_id', 40).primary().references('articles.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('slug', 200).notNullable();
    t.string('category', 40).notNullable();
    t.string('published_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.integer('ws_rank').notNullable();
    t.integer('cat_rank').notNullable();
    t.text('tags').notNullable(); // JSON array of tag slugs (for related posts and removal)
    t.text('index_json').notNullable(); // serialized ArticleIndex
    t.text('sitemap_json').notNullable(); // serialized sitemap entry
    t.unique(['workspace_id', 'slug']);
    t.index(['workspace_id', 'ws_rank']);
    t.index(['workspace_id', 'category', 'cat_rank']);
    t.index(['workspace_id', 'published_at', 'article_id']);
  });

  await knex.schema.createTable('content_articles', (t) => {
    t.string('article_id', 40).primary().references('articles.id').onDelete('CASCADE');
    t.text('article_json').notNullable(); // serialized Article without relatedPosts
  });

  await knex.schema.createTable('content_tags', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('tag', 200).notNullable();
    t.string('article_id', 40).notNullable().references('articles.id').onDelete('CASCADE');
    t.string('published_at', 32).notNullable();
    t.integer('rank').notNullable();
    t.primary(['workspace_id', 'tag', 'article_id']);
    t.index(['workspace_id', 'tag', 'rank']);
    t.index(['article_id']);
  });

  // Categories and tags with their counts and lastmod, kept up to date at publish time.
  await knex.schema.createTable('content_terms', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('kind', 10).notNullable(); // category | tag
    t.string('slug', 200).notNullable();
    t.string('title', 200).notNullable();
    t.integer('count').notNullable();
    t.string('lastmod', 32).notNullable();
    t.primary(['workspace_id', 'kind', 'slug']);
  });

  // When the served content of a workspace last changed (Last-Modified of lists and sitemap).
  await knex.schema.createTable('content_state', (t) => {
    t.string('workspace_id', 40).primary().references('workspaces.id').onDelete('CASCADE');
    t.string('changed_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['content_state', 'content_terms', 'content_tags', 'content_articles', 'content_index']) {
    await knex.schema.dropTableIfExists(table);
  }
}
