import type { Knex } from 'knex';

// Draft previews (issue 26; src/publishing/previews.ts): a token for one article, shown to the
// workspace's blog key only, until it expires or is revoked. Only the token's SHA-256 is stored.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('content_previews', (t) => {
    t.string('id', 40).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('article_id', 40).notNullable().references('articles.id').onDelete('CASCADE');
    t.string('created_at', 32).notNullable();
    t.string('expires_at', 32).notNullable();
    t.string('revoked_at', 32).nullable();
    t.index(['article_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('content_previews');
}
