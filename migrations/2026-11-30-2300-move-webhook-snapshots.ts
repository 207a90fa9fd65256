import type { Knex } from 'knex';

/** Daemons of svc 0.2.0 write and read webhook_events.snapshot, which this moves. */
export const breaksRunningDaemons = 'daemons of svc 0.2.0 fail every publish, unpublish and delete on a workspace with a webhook (they write its event with webhook_events.snapshot) and cannot send the events queued';

// An event's snapshot (its article, body included: up to a few MB) sat in its webhook_events row,
// which every claim and every settle rewrites whole on SQLite: a delivery cost the writer time in
// proportion to the article's size. It now has a row of its own, written once. Schema and data in
// one file: the copy must run between the new table and the dropped column, both ways.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_event_snapshots', (t) => {
    t.string('event_id', 40).primary().references('webhook_events.id').onDelete('CASCADE');
    t.text('snapshot').notNullable();
  });
  await knex('webhook_event_snapshots').insert(knex('webhook_events').select('id', 'snapshot'));
  // Not knex's dropColumn: on SQLite it copies the table and drops the original inside the
  // migration's transaction, where foreign keys stay on, so the drop cascades and empties
  // webhook_deliveries and the new table. DROP COLUMN is native on PostgreSQL and SQLite >= 3.35.
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['webhook_events', 'snapshot']);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => t.text('snapshot').notNullable().defaultTo('{}'));
  const stored = knex('webhook_event_snapshots as s').select('s.snapshot').whereRaw('?? = ??', ['s.event_id', 'webhook_events.id']);
  await knex('webhook_events').update({ snapshot: stored });
  await knex.schema.dropTable('webhook_event_snapshots');
}
