import type { Knex } from 'knex';

// Search over served snapshots (issue 26; src/content/search-store.ts). `content_search` maps an
// article to its entry; the terms are computed by svc (src/content/search-terms.ts), the same on
// both databases. SQLite keeps them in an FTS5 table whose rowid is content_search.id; PostgreSQL
// in a tsvector column under a GIN index (built-in, no extension). Both are exceptions to "knex
// builders only": a virtual table and a tsvector have no builder. Rows are derived data, filled by
// the next migration and rebuilt by `svc db copy`, never copied. Deliberately no index on
// workspace_id: the planner would start from the workspace's rows instead of the text match. fastupdate off: a
// search never scans a pending list that grows with recent publishes (flat cost; slower bulk inserts).
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  await knex.schema.createTable('content_search', (t) => {
    t.increments('id');
    t.string('article_id', 40).notNullable().unique().references('articles.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    if (pg) t.specificType('document', 'tsvector').notNullable();
  });
  if (pg) await knex.raw('CREATE INDEX content_search_document ON content_search USING GIN (document) WITH (fastupdate = off)');
  else await knex.raw("CREATE VIRTUAL TABLE content_search_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 0')");
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') await knex.raw('DROP TABLE IF EXISTS content_search_fts');
  await knex.schema.dropTableIfExists('content_search');
}
