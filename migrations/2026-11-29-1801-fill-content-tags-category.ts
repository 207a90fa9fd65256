import type { Knex } from 'knex';

// The category of the tag rows published before the column existed: their article's, from its
// index row (one statement; a tag row without an index row is left null, and read as the reader
// reads an old daemon's rows).
export async function up(knex: Knex): Promise<void> {
  await knex('content_tags')
    .whereNull('category')
    .update({ category: knex('content_index').select('category').where('content_index.article_id', knex.ref('content_tags.article_id')) });
}

export async function down(knex: Knex): Promise<void> {
  await knex('content_tags').update({ category: null });
}
