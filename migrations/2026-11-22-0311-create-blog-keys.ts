import type { Knex } from 'knex';

// One blog key per workspace (the headless connector's). Only the SHA-256 of the key is kept.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('blog_keys', (t) => {
    t.string('workspace_id', 40).primary().references('workspaces.id').onDelete('CASCADE');
    t.string('connector_id', 40).notNullable().references('connectors.id').onDelete('CASCADE');
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_hint', 40).notNullable(); // prefix and last 4 characters, for `svc blog-key show`
    t.string('created_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('blog_keys');
}
