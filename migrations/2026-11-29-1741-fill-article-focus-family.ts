import type { Knex } from 'knex';
import { keywordFamily } from '../src/articles/keyword-family.js';

/** Daemons of svc 0.2.0 do not write focus_family: the keywords they write afterwards stay outside the conflict check for good. */
export const breaksRunningDaemons = 'focus keywords that daemons of svc 0.2.0 write afterwards would be missed by the focus-keyword conflict check (they keep no family)';

// The family of the focus keywords written before the column existed (computed in JS: the
// normal form is not one SQL expression on both engines), a page of 500 articles at a time.
export async function up(knex: Knex): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Array<{ id: string; focus_keyword: string }> = await knex('articles').whereNotNull('focus_keyword').andWhere('id', '>', after).orderBy('id').limit(500).select('id', 'focus_keyword');
    if (rows.length === 0) return;
    for (const r of rows) await knex('articles').where({ id: r.id }).update({ focus_family: keywordFamily(r.focus_keyword) || null });
    after = rows[rows.length - 1].id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('articles').update({ focus_family: null });
}
