import type { Knex } from 'knex';

// Headless API keys for /api/mcp (issue 5). Only the sha256 of the key is stored; a key acts
// for the admin who created it (user_id), whose membership is re-checked on every call.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('scopes', 100).notNullable(); // JSON array of scope names
    t.string('key_hash', 64).notNullable().unique();
    t.string('created_at', 32).notNullable();
    t.string('last_used_at', 32).nullable();
    t.string('revoked_at', 32).nullable();
    t.index(['workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('api_keys');
}
