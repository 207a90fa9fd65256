import { type Queryable, type Row, isPostgres } from './connect.js';

/**
 * Each row once, in no order. On PostgreSQL a lateral subquery per key (OFFSET 0 keeps it from
 * becoming a join) uses the index, where the planner may scan the table for an IN list. `table` and
 * `column` come from code, never from input.
 */
export async function rowsByKeys(db: Queryable, table: string, column: string, keys: string[], columns?: string[]): Promise<Row[]> {
  const out: Row[] = [];
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    if (!isPostgres(db)) {
      out.push(...(await db(table).whereIn(column, chunk).select(columns ?? '*')));
      continue;
    }
    const what = columns ? columns.map(() => '??').join(', ') : '*';
    const { rows } = await db.raw(`select t.* from unnest(?::text[]) as u (key) cross join lateral (select ${what} from ?? where ?? = u.key offset 0) as t`, [chunk, ...(columns ?? []), table, column]);
    out.push(...(rows as Row[]));
  }
  return out;
}
