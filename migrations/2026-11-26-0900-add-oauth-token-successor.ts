import type { Knex } from 'knex';

// A rotated refresh token keeps its successor, sealed with a key only the rotated token itself
// derives (src/oauth/successor.ts), so a reuse within the grace is answered with the same
// successor instead of a new independent refresh token (issue 22). Old daemons ignore it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_tokens', (t) => {
    t.string('successor', 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_tokens', (t) => {
    t.dropColumn('successor');
  });
}

// SQLite rebuilds the table to drop a column, safely only outside a transaction (see 2026-11-23-1700).
export const config = { transaction: false };
