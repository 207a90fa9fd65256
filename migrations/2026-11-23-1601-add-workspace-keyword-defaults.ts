import type { Knex } from 'knex';

// Default location and language of a workspace's keyword lookups (`svc workspaces set
// --keyword-location 2840 --keyword-language en`); null means the documented fallback.

// Outside a transaction: knex drops a SQLite column by copying the table, and only outside a
// transaction can it turn foreign keys off meanwhile; inside one, dropping the old `workspaces`
// would cascade into every table that references it.
export const config = { transaction: false };
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.string('keyword_location', 100).nullable();
    t.string('keyword_language', 50).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('keyword_location');
    t.dropColumn('keyword_language');
  });
}
