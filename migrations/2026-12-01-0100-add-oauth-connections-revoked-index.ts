import type { Knex } from 'knex';

// The periodic cleanup (src/jobs/cleanup.ts) forgets connections revoked long ago; it finds them
// through this index instead of scanning every connection ever approved.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_connections', (t) => t.index(['revoked_at'], 'oauth_connections_revoked_at'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_connections', (t) => t.dropIndex(['revoked_at'], 'oauth_connections_revoked_at'));
}
