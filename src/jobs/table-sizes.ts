import { type Db, isPostgres } from '../db/connect.js';

/** The tables that grow with use; the cleanup job (jobs/cleanup.ts) keeps them bounded. */
export const GROWING_TABLES = ['webhook_events', 'webhook_event_snapshots', 'webhook_deliveries', 'oauth_tokens', 'oauth_codes', 'oauth_requests', 'sessions'] as const;

export interface TableSize {
  table: string;
  rows: number;
  /** On PostgreSQL, the table with its indexes and TOAST; null on SQLite, where only a full walk of its pages would tell. */
  bytes: number | null;
}

/** Row counts (and bytes where the engine keeps them) of the growing tables, and of the whole database. */
export async function growingTableSizes(db: Db): Promise<{ tables: TableSize[]; databaseBytes: number }> {
  const pg = isPostgres(db);
  const tables: TableSize[] = [];
  for (const table of GROWING_TABLES) {
    const rows = Number((await db(table).count({ n: '*' }))[0].n);
    const bytes = pg ? Number((await db.raw('SELECT pg_total_relation_size(?::regclass) AS b', [table])).rows[0].b) : null;
    tables.push({ table, rows, bytes });
  }
  const databaseBytes = pg
    ? Number((await db.raw('SELECT pg_database_size(current_database()) AS b')).rows[0].b)
    : Number((await db.raw('SELECT page_count * page_size AS b FROM pragma_page_count(), pragma_page_size()'))[0].b);
  return { tables, databaseBytes };
}
