import type { Knex } from 'knex';

// Counters of the shared rate limits (src/limits/), in the layout rate-limiter-flexible's
// PostgreSQL store expects. Created here, under the migration lock, so that daemons starting
// together do not race to create it; the limiter is told the table exists (tableCreated).
// SQLite keeps its counters in memory (one daemon per file) and leaves this table empty.
// login_attempts is no longer read or written by this version; it stays for daemons of the
// previous version during a rolling upgrade and may be dropped by a later release.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
