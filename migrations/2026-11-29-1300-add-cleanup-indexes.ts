import type { Knex } from 'knex';

// The periodic cleanup (src/jobs/cleanup.ts) deletes by these columns; each of its statements
// finds its rows through one of these indexes instead of scanning the table, and so do the
// deletes a removed client or session cascades to.
const INDEXES: Array<[table: string, columns: string[], name: string]> = [
  ['webhook_deliveries', ['created_at', 'id'], 'webhook_deliveries_created_at_id'],
  ['oauth_tokens', ['expires_at'], 'oauth_tokens_expires_at'],
  ['oauth_tokens', ['rotated_at'], 'oauth_tokens_rotated_at'],
  ['oauth_codes', ['expires_at'], 'oauth_codes_expires_at'],
  ['oauth_requests', ['expires_at'], 'oauth_requests_expires_at'],
  ['oauth_requests', ['client_id'], 'oauth_requests_client_id'],
  ['oauth_requests', ['session_hash'], 'oauth_requests_session_hash'],
  ['oauth_codes', ['client_id'], 'oauth_codes_client_id'],
  ['oauth_connections', ['client_id'], 'oauth_connections_client_id'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [table, columns, name] of INDEXES) await knex.schema.alterTable(table, (t) => t.index(columns, name));
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, columns, name] of INDEXES) await knex.schema.alterTable(table, (t) => t.dropIndex(columns, name));
}
