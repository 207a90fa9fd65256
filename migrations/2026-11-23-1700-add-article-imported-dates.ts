import type { Knex } from 'knex';

// Imported history (decisions.md, second round; issue 15): the date an imported post had on the
// old site becomes its first-publish time when it is first published here, and its lastmod the
// update time. Nullable: articles written in svc have none, and a daemon of the previous
// version keeps running while this one migrates.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.string('imported_published_at', 32).nullable();
    t.string('imported_updated_at', 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.dropColumn('imported_published_at');
    t.dropColumn('imported_updated_at');
  });
}

// Outside a transaction: SQLite drops a column by rebuilding the table, which knex does safely
// (foreign keys off meanwhile) only outside one. Inside, dropping the old `articles` table would
// cascade-delete every snapshot, publication and event that references it.
export const config = { transaction: false };
