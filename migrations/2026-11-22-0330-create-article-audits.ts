import type { Knex } from 'knex';

// The latest on-page SEO audit of each article (issue 5, MCP tool audit_article).
// The score is also written to articles.seo_score.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('article_audits', (t) => {
    t.string('article_id', 40).primary().references('articles.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.integer('score').notNullable();
    t.text('result').notNullable(); // JSON: checks and figures
    t.string('audited_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('article_audits');
}
