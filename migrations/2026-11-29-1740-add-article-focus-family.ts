import type { Knex } from 'knex';

// Focus keywords in the form two of them compete in (keywordFamily: case, hyphens, plurals), under
// an index, so a conflict at create, update and audit is one lookup instead of a read of every
// article of the workspace. Text, not varchar: lower-casing can lengthen a keyword.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.text('focus_family').nullable();
    t.index(['workspace_id', 'focus_family'], 'articles_workspace_focus_family');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.dropIndex(['workspace_id', 'focus_family'], 'articles_workspace_focus_family');
    t.dropColumn('focus_family');
  });
}

// SQLite rebuilds the table to drop a column, safely only outside a transaction (see 2026-11-23-1700).
export const config = { transaction: false };
