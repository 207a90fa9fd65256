import type { Db, Trx } from '../db/connect.js';
import { copyTable, countRows } from './table-copy.js';
import { rebuildSearchIndex } from '../content/search-store.js';
import { AppError } from '../errors.js';
import { backupErrors } from './errors.js';

export interface CopyProgress {
  table: string;
  /** Rows copied so far, over all tables. */
  done: number;
  total: number;
}

/**
 * The one row copy of `svc db copy` and `svc restore`: every table of `tables` (dependency
 * order, only tables the target's own schema has) from a SQLite source into a target migrated
 * by svc, inside the caller's transaction; row counts compared before it commits. The search
 * index is derived, never copied: it is rebuilt from the copied snapshots.
 */
export async function copyRows(source: Db, trx: Trx, tables: string[], onProgress?: (p: CopyProgress) => void, attachedAs?: string, shown = 'The source'): Promise<Array<{ table: string; rows: number }>> {
  const counts = new Map<string, number>();
  for (const t of tables) counts.set(t, await countRows(source, t));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let done = 0;
  for (const table of tables) {
    onProgress?.({ table, done, total });
    await copyTable(
      source,
      trx,
      table,
      (n) => {
        done += n;
        onProgress?.({ table, done, total });
      },
      attachedAs,
    ).catch((err: Error & { code?: string }) => {
      // A value the target's types or constraints refuse (PostgreSQL class 22 or 23, SQLite's
      // constraint and type errors) is the file's fault, named as such; the transaction ends.
      if (/^2[23]/.test(err.code ?? '') || /^SQLITE_(CONSTRAINT|MISMATCH)/.test(err.code ?? '')) throw backupErrors.rowsRefused(shown, table, err);
      throw err;
    });
  }
  for (const table of tables) {
    const rows = await countRows(trx, table);
    if (rows !== counts.get(table)) {
      throw new AppError('copy_mismatch', 500, `Row counts differ after the copy: ${table} has ${counts.get(table)} rows in the source and ${rows} in the target; nothing was committed`);
    }
  }
  await rebuildSearchIndex(trx);
  return tables.map((table) => ({ table, rows: counts.get(table)! }));
}

/** The tables of `order` that `db` has (a source may hold tables svc never made, or lack one). */
export async function tablesIn(db: Db | Trx, order: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of order) if (await db.schema.hasTable(t)) out.push(t);
  return out;
}
