import type { Knex } from 'knex';

// A scheduled publish that fails is recorded on the article and retried with a growing delay
// (issue 11), instead of being turned back into a draft with the error only in the log.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.text('publish_error').nullable();
    t.string('publish_error_at', 32).nullable();
    t.integer('publish_failures').notNullable().defaultTo(0);
    t.string('publish_retry_at', 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.dropColumn('publish_error');
    t.dropColumn('publish_error_at');
    t.dropColumn('publish_failures');
    t.dropColumn('publish_retry_at');
  });
}

// See 2026-11-23-1700: SQLite rebuilds `articles` to drop columns, safely only outside a transaction.
export const config = { transaction: false };
