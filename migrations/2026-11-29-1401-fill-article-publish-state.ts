import type { Knex } from 'knex';

/** Daemons of svc 0.2.0 keep none of these columns: what they publish or edit afterwards shows a wrong live state for good. */
export const breaksRunningDaemons = 'articles that daemons of svc 0.2.0 publish or edit afterwards would show a wrong live state (they keep no revisions)';

// Articles published before the columns existed: their first publish is their earliest
// publication's, and what is live counts as their current revision (nothing was recorded to say
// otherwise), as does the score of an audited one. One statement each, on both engines.
export async function up(knex: Knex): Promise<void> {
  const earliest = knex('publications').min('first_published_at').where('publications.article_id', knex.ref('articles.id'));
  await knex('articles').whereNull('first_published_at').update({ first_published_at: earliest });
  await knex('articles').whereNotNull('seo_score').update({ audited_revision: 0 });
  await knex('articles').whereExists(knex('publications').select(knex.raw('1')).where('publications.article_id', knex.ref('articles.id'))).update({ published_revision: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex('articles').update({ first_published_at: null, published_revision: null, audited_revision: null });
}
