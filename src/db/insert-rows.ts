import { type Queryable, isPostgres, writeOn } from './connect.js';

/** Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535. */
const MAX_PARAMETERS = 30_000;

/**
 * `table` and the column names come from code, never from input.
 * Rows with the first row's columns, in as few statements as the bounds on parameters allow. On
 * SQLite one VALUES list: knex writes UNION ALL selects, which SQLite caps at 500 and plans row by row.
 */
export async function insertRows(db: Queryable, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const per = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    if (isPostgres(db)) {
      await db(table).insert(chunk);
      continue;
    }
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const values = chunk.flatMap((r) => columns.map((c) => r[c] ?? null));
    await writeOn(db).raw(`insert into ?? (${columns.map(() => '??').join(', ')}) values ${chunk.map(() => tuple).join(', ')}`, [table, ...columns, ...values] as never);
  }
}
