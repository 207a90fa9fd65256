import type { Knex } from 'knex';

// The sitemap of a large workspace is read as a few hundred pre-joined blocks instead of one row
// per article (100,000 rows cost ~0.5 s to read; 400 blocks a few ms). Each block holds the
// serialized entries of up to ~256 consecutive articles, newest first, rebuilt when one changes.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_index', (t) => {
    t.integer('sitemap_block').notNullable().defaultTo(0);
    t.index(['workspace_id', 'sitemap_block']);
  });
  await knex.schema.createTable('content_sitemap_blocks', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.integer('block').notNullable();
    t.text('entries').notNullable(); // comma-joined sitemap entries
    t.primary(['workspace_id', 'block']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('content_sitemap_blocks');
  await knex.schema.alterTable('content_index', (t) => {
    t.dropIndex(['workspace_id', 'sitemap_block']);
    t.dropColumn('sitemap_block');
  });
}
