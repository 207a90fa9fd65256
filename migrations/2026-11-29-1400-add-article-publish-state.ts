import type { Knex } from 'knex';

// What an article's publication says beyond its publications rows (issue 40): the first publish
// ever (kept through unpublish and republish, decisions.md), and the content revision, bumped by
// every edit, beside the revision last published, so "the live copy differs from the draft" is
// exact; and the revision last audited, so a score the body has changed under is marked stale.
// Old daemons ignore these columns: they read and write the rest as before.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.string('first_published_at', 40).nullable();
    t.integer('revision').notNullable().defaultTo(0);
    t.integer('published_revision').nullable();
    t.integer('audited_revision').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.dropColumn('first_published_at');
    t.dropColumn('revision');
    t.dropColumn('published_revision');
    t.dropColumn('audited_revision');
  });
}

// SQLite rebuilds the table to drop a column, safely only outside a transaction (see 2026-11-23-1700).
export const config = { transaction: false };
