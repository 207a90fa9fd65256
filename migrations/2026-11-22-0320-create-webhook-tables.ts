import type { Knex } from 'knex';

// The webhook outbox, its attempt log and the daemon heartbeat (issue 4).
export async function up(knex: Knex): Promise<void> {
  // One row per event (article.published ... test). `seq` orders events of one article;
  // `locked_until`/`locked_by` are the lease of the process delivering it right now, so a
  // crashed attempt is retried once the lease runs out and two daemons never send it together.
  await knex.schema.createTable('webhook_events', (t) => {
    t.bigIncrements('seq');
    t.string('id', 40).notNullable().unique();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('connector_id', 40).notNullable().references('connectors.id').onDelete('CASCADE');
    t.string('article_id', 40).notNullable(); // no FK: article.deleted outlives the article
    t.string('event', 40).notNullable();
    t.text('snapshot').notNullable(); // JSON: workspace, article and publication at enqueue time
    t.string('status', 20).notNullable(); // pending | delivered | failed | cancelled
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 32).notNullable();
    t.string('locked_until', 32).nullable();
    t.string('locked_by', 60).nullable();
    t.integer('last_status').nullable();
    t.text('last_error').nullable();
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.string('delivered_at', 32).nullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['connector_id', 'article_id', 'status']);
  });

  // Every attempt, successful or not (svc webhook deliveries).
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 40).primary(); // = X-Service-Delivery = deliveryId
    t.string('event_id', 40).notNullable().references('webhook_events.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable();
    t.string('article_id', 40).notNullable();
    t.string('event', 40).notNullable();
    t.integer('attempt').notNullable();
    t.string('url', 2000).notNullable();
    t.boolean('ok').notNullable();
    t.integer('status_code').nullable();
    t.integer('duration_ms').notNullable();
    t.text('error').nullable();
    t.text('response_excerpt').nullable();
    t.string('created_at', 32).notNullable();
    t.index(['workspace_id', 'created_at']);
    t.index(['event_id']);
  });

  // Refreshed by each running daemon's webhook worker, so the CLI can say whether an event
  // it queued goes out now or waits for `svc serve`.
  await knex.schema.createTable('daemon_heartbeats', (t) => {
    t.string('id', 60).primary();
    t.integer('pid').notNullable();
    t.string('host', 200).notNullable();
    t.string('started_at', 32).notNullable();
    t.string('seen_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['daemon_heartbeats', 'webhook_deliveries', 'webhook_events']) {
    await knex.schema.dropTableIfExists(table);
  }
}
