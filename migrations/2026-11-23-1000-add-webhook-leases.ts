import type { Knex } from 'knex';

// Lease ownership and heartbeats for the webhook outbox (issues 10 and 12). Additive only, so a
// daemon of the previous version keeps running while this one migrates: it ignores the new
// columns, and a row it writes gets their defaults.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    // Set with locked_by on every claim; only the holder of this token may settle the event.
    t.string('lease_token', 40).nullable();
    // The attempt count at which the current retry budget began (a redelivery or an enable starts a fresh one).
    t.integer('retry_from').notNullable().defaultTo(0);
    // Publish and delete look for an unpublish of the article that is still waiting (any connector).
    t.index(['article_id', 'status'], 'webhook_events_article_status');
  });
  await knex.schema.alterTable('daemon_heartbeats', (t) => {
    // 'daemon' (a webhook worker) or 'request' (a process waiting for one delivery, e.g. an unpublish).
    t.string('kind', 20).notNullable().defaultTo('daemon');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => t.dropIndex(['article_id', 'status'], 'webhook_events_article_status'));
  // Not knex's dropColumn: on SQLite it copies the table and drops the original inside the
  // migration's transaction, where foreign keys stay on, so the drop cascades and empties
  // webhook_deliveries. ALTER TABLE ... DROP COLUMN is native on PostgreSQL and SQLite >= 3.35.
  for (const [table, column] of [['webhook_events', 'lease_token'], ['webhook_events', 'retry_from'], ['daemon_heartbeats', 'kind']]) {
    await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
}
