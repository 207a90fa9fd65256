import type { Knex } from 'knex';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Daemons of svc 0.2.0 read and write content_articles.article_json, which this removes. */
export const breaksRunningDaemons = 'daemons of svc 0.2.0 fail to publish, and to serve an article by its slug, without content_articles.article_json';

// A snapshot's article was stored whole as JSON text (content_articles.article_json, ~5 KB for
// 400 words): the fields of its index entry a second time beside content_index.index_json, and
// its html and markdown, which repeat each other's text. It is now stored as the fields the index
// entry does not hold, deflated (content_articles.article, ~1.5 KB; src/content/snapshot.ts
// packArticle). The conversion is written out here, not imported, so it stays what it was.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_articles', (t) => t.binary('article'));
  await convert(knex, 'article_json', 'article', (indexJson, stored) => {
    const index = JSON.parse(indexJson) as Record<string, unknown>;
    const article = JSON.parse(stored as string) as Record<string, unknown>;
    return deflateRawSync(JSON.stringify(Object.fromEntries(Object.entries(article).filter(([key]) => !(key in index)))), { level: 1 });
  });
  await knex.schema.alterTable('content_articles', (t) => t.dropColumn('article_json'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('content_articles', (t) => t.text('article_json'));
  await convert(knex, 'article', 'article_json', (indexJson, stored) => `${indexJson.slice(0, -1)},${inflateRawSync(stored as Buffer).toString().slice(1)}`);
  await knex.schema.alterTable('content_articles', (t) => t.dropColumn('article'));
}

/** Fill column `to` from `from` and the article's index entry, 500 articles at a time; a row without an index entry is served by nothing and goes. */
async function convert(knex: Knex, from: string, to: string, fn: (indexJson: string, stored: unknown) => unknown): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Array<Record<string, any>> = await knex('content_articles as ca')
      .join('content_index as ci', 'ci.article_id', 'ca.article_id')
      .where('ca.article_id', '>', after)
      .orderBy('ca.article_id')
      .limit(500)
      .select('ca.article_id', 'ci.index_json', `ca.${from} as stored`);
    if (rows.length === 0) break;
    for (const r of rows) await knex('content_articles').where({ article_id: r.article_id }).update({ [to]: fn(r.index_json, r.stored) });
    after = rows[rows.length - 1].article_id;
  }
  await knex('content_articles').whereNull(to).delete();
}
