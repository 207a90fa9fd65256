import type { Knex } from 'knex';

// The image store: each workspace's images by the SHA-256 of their bytes (so the same image is
// stored once per workspace, however often it is added), with the type sniffed from the bytes.
// The bytes live in the database so every daemon serves them and every backup holds them.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('images', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('hash', 64).notNullable();
    t.string('content_type', 40).notNullable();
    t.bigInteger('size').notNullable();
    t.integer('width').nullable();
    t.integer('height').nullable();
    t.binary('bytes').notNullable();
    t.string('created_at', 40).notNullable();
    t.primary(['workspace_id', 'hash']);
    t.index(['hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('images');
}
