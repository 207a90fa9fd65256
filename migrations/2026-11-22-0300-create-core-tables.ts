import type { Knex } from 'knex';

// Timestamps are UTC ISO 8601 strings (`2026-11-22T03:00:00.000Z`): portable between SQLite and
// PostgreSQL and ordered correctly as text. Booleans are knex booleans (0/1 on SQLite).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspaces', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable().unique();
    t.string('website_url', 500).notNullable();
    t.string('site_url', 500).nullable();
    t.string('content_path', 200).notNullable().defaultTo('/blog');
    t.string('plan', 60).notNullable().defaultTo('free');
    t.string('billing_status', 20).notNullable().defaultTo('active');
    t.string('grace_until', 32).nullable();
    t.boolean('auto_publish').notNullable().defaultTo(false);
    t.integer('allowance_articles').notNullable().defaultTo(10);
    t.integer('allowance_audits').notNullable().defaultTo(50);
    t.integer('allowance_keywords').notNullable().defaultTo(100);
    // Bumped in every transaction that changes what the content API serves (cross-process freshness).
    t.bigInteger('content_version').notNullable().defaultTo(0);
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
  });

  await knex.schema.createTable('users', (t) => {
    t.string('id', 40).primary();
    t.string('email', 320).notNullable().unique();
    t.string('password_hash', 300).notNullable();
    t.string('display_name', 200).notNullable();
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
  });

  await knex.schema.createTable('memberships', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 20).notNullable();
    t.string('created_at', 32).notNullable();
    t.primary(['workspace_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('articles', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('title', 500).notNullable();
    t.string('slug', 200).notNullable();
    t.string('content_type', 40).notNullable();
    t.text('body_markdown').notNullable();
    t.string('meta_title', 500).nullable();
    t.text('meta_description').nullable();
    t.string('focus_keyword', 200).nullable();
    t.text('secondary_keywords').notNullable().defaultTo('[]'); // JSON array of strings
    t.string('featured_image_url', 2000).nullable();
    t.string('image_alt', 500).nullable();
    t.string('author', 200).nullable();
    t.integer('target_length').notNullable().defaultTo(0);
    t.integer('seo_score').nullable();
    t.string('status', 20).notNullable().defaultTo('draft');
    t.string('scheduled_at', 32).nullable();
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.unique(['workspace_id', 'slug']);
    t.index(['workspace_id', 'status', 'created_at']);
    t.index(['status', 'scheduled_at']);
  });

  await knex.schema.createTable('connectors', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('kind', 20).notNullable(); // headless | webhook
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('url', 2000).nullable(); // webhook endpoint
    t.string('signing_secret', 200).nullable();
    t.string('previous_secret', 200).nullable(); // still signs until previous_secret_until (rotation)
    t.string('previous_secret_until', 32).nullable();
    t.string('disabled_reason', 500).nullable();
    t.string('failing_since', 32).nullable();
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.unique(['workspace_id', 'kind']); // one connector per kind (spec rule 5)
  });

  // Article x connector. For the headless connector the served snapshot lives in its own tables.
  await knex.schema.createTable('publications', (t) => {
    t.string('article_id', 40).notNullable().references('articles.id').onDelete('CASCADE');
    t.string('connector_id', 40).notNullable().references('connectors.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('first_published_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.string('published_url', 2000).nullable();
    t.text('last_error').nullable();
    t.string('last_error_at', 32).nullable();
    t.primary(['article_id', 'connector_id']);
    t.index(['connector_id']);
  });

  // Monthly usage per workspace (calendar month, UTC, `2026-11`).
  await knex.schema.createTable('usage_counters', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('month', 7).notNullable();
    t.string('kind', 20).notNullable(); // articles | audits | keywords
    t.integer('used').notNullable().defaultTo(0);
    t.primary(['workspace_id', 'month', 'kind']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['usage_counters', 'publications', 'connectors', 'articles', 'memberships', 'users', 'workspaces']) {
    await knex.schema.dropTableIfExists(table);
  }
}
