import type { Knex } from 'knex';

// Keyword research (issue 14, docs/keywords.md). A keyword is stored once per workspace,
// normalised form (case, NFC, whitespace), location and language; articles are matched to it by
// that normalised form at read time, so nothing here points at articles.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('keywords', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('keyword', 200).notNullable(); // as first written
    t.string('normalized', 200).notNullable();
    t.string('location', 100).notNullable(); // provider location code (2840) or name
    t.string('language', 50).notNullable(); // provider language code (en) or name
    t.bigInteger('search_volume').nullable();
    t.double('cpc').nullable(); // USD
    t.double('competition').nullable(); // paid competition, 0..1
    t.string('competition_level', 10).nullable(); // LOW | MEDIUM | HIGH
    t.integer('difficulty').nullable(); // 0..100
    t.string('intent', 20).nullable(); // informational | navigational | commercial | transactional
    t.text('monthly_searches').notNullable().defaultTo('[]'); // JSON [{ month: "2026-10", searchVolume }]
    t.bigInteger('clicks').nullable(); // Search Console imports
    t.bigInteger('impressions').nullable();
    t.double('position').nullable();
    t.string('source', 40).notNullable(); // dataforseo | keyword-planner | search-console | semrush | ahrefs | csv
    t.string('fetched_at', 32).notNullable(); // when the metrics shown were obtained
    t.string('researched_at', 32).nullable(); // last provider lookup: answers from the store for 30 days
    t.string('ideas_fetched_at', 32).nullable(); // last provider idea search with this keyword as a seed
    t.string('created_at', 32).notNullable();
    t.string('updated_at', 32).notNullable();
    t.unique(['workspace_id', 'normalized', 'location', 'language']);
  });

  // Ideas found for a seed keyword, so a later call asking for them within 30 days is answered
  // from the store.
  await knex.schema.createTable('keyword_idea_links', (t) => {
    t.string('seed_id', 40).notNullable().references('keywords.id').onDelete('CASCADE');
    t.string('idea_id', 40).notNullable().references('keywords.id').onDelete('CASCADE');
    t.primary(['seed_id', 'idea_id']);
    t.index(['idea_id']);
  });

  // One row per provider lookup: the credits it reserved before calling the provider, settled
  // when it ends (done keeps them; failed and abandoned give them back).
  await knex.schema.createTable('keyword_lookups', (t) => {
    t.string('id', 40).primary();
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('month', 7).notNullable(); // the usage_counters month the credits came from
    t.integer('credits').notNullable();
    t.string('status', 20).notNullable(); // pending | done | failed | abandoned
    t.string('provider', 40).notNullable();
    t.text('keywords').notNullable(); // JSON array of the keywords sent
    t.text('error').nullable();
    t.string('created_at', 32).notNullable();
    t.string('settled_at', 32).nullable();
    t.index(['workspace_id', 'status', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['keyword_lookups', 'keyword_idea_links', 'keywords']) await knex.schema.dropTableIfExists(table);
}
