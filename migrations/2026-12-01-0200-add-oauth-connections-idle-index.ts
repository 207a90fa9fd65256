import type { Knex } from 'knex';

// The periodic cleanup (src/jobs/cleanup.ts) forgets connections that expired from disuse long
// ago: live ones (revoked_at null) last used before a cutoff, found through this index instead of
// scanning every connection ever approved. Revoked ones go by oauth_connections_revoked_at.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_connections', (t) => t.index(['revoked_at', 'last_used_at'], 'oauth_connections_idle'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_connections', (t) => t.dropIndex(['revoked_at', 'last_used_at'], 'oauth_connections_idle'));
}
