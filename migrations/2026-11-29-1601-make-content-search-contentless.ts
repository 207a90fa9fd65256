import type { Knex } from 'knex';
import { rebuildSearchIndex } from '../src/content/search-store.js';

// SQLite's FTS5 table kept its own copy of every indexed text (content_search_fts_content, ~2 KB
// an article) that nothing reads: searches need only the index, and bm25 only its sizes. It is
// now contentless (content=''), with contentless_delete so an entry is removed by its rowid
// alone (SQLite 3.43+), and filled again from the stored snapshots. PostgreSQL's tsvector is the
// only copy of its terms there (ts_rank reads it), so it stays.
export async function up(knex: Knex): Promise<void> {
  await recreate(knex, "content = '', contentless_delete = 1, ");
}

export async function down(knex: Knex): Promise<void> {
  await recreate(knex, '');
}

async function recreate(knex: Knex, options: string): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('DROP TABLE IF EXISTS content_search_fts');
  await knex.raw(`CREATE VIRTUAL TABLE content_search_fts USING fts5(title, body, ${options}tokenize = 'unicode61 remove_diacritics 0')`);
  await rebuildSearchIndex(knex);
}
