import type { Knex } from 'knex';
import { rebuildSearchIndex } from '../src/content/search-store.js';

// Index the snapshots served before search existed (issue 26), 500 at a time, with the code that
// indexes every publish since, reading the snapshots as they were stored then (whole JSON).
export async function up(knex: Knex): Promise<void> {
  await rebuildSearchIndex(knex, (r) => JSON.parse(r.article_json));
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') await knex('content_search_fts').delete();
  await knex('content_search').delete();
}
