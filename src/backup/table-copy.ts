import { type Db, type Queryable, type Trx, isPostgres } from '../db/connect.js';

/** knex's bookkeeping: the target gets its own by migrating, never a copy. */
const KNEX_TABLES = new Set(['knex_migrations', 'knex_migrations_lock']);

/** Runtime state is never copied: daemons' liveness, and a webhook event's lease (the event is free for whichever daemon serves the copy). */
const RUNTIME_TABLES = new Set(['daemon_heartbeats']);
const RUNTIME_COLUMNS: Record<string, string[]> = { webhook_events: ['locked_until', 'locked_by', 'lease_token'] };

/** The search index (an FTS5 table and its shadow tables): rebuilt on the target. */
const isDerived = (name: string) => name.startsWith('content_search');

/** svc's data tables of a SQLite database (runtime state aside), each after the tables its foreign keys reference. */
export async function tablesInDependencyOrder(source: Db): Promise<string[]> {
  const names: string[] = (await source.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"))
    .map((r: { name: string }) => r.name)
    .filter((n: string) => !KNEX_TABLES.has(n) && !RUNTIME_TABLES.has(n) && !isDerived(n));
  const parents = new Map<string, string[]>();
  for (const name of names) {
    const fks: Array<{ table: string }> = await source.raw(`PRAGMA foreign_key_list("${name}")`);
    parents.set(name, [...new Set(fks.map((f) => f.table).filter((t) => t !== name))]);
  }
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    if (visiting.has(name)) throw new Error(`foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const p of parents.get(name) ?? []) if (parents.has(p)) visit(p);
    visiting.delete(name);
    ordered.push(name);
  };
  names.forEach(visit);
  return ordered;
}

export const countRows = async (db: Queryable, table: string): Promise<number> => Number((await db(table).count({ n: '*' }))[0].n);

export async function occupiedTables(target: Queryable, tables: string[]): Promise<Array<{ table: string; rows: number }>> {
  const counted = [];
  for (const table of tables) counted.push({ table, rows: await countRows(target, table) });
  return counted.filter((t) => t.rows > 0);
}

export async function truncateTables(trx: Trx, tables: string[]): Promise<void> {
  if (tables.length > 0) await trx.raw(`TRUNCATE ${tables.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
}

/** Serialises copies into one PostgreSQL database: the second waits, then finds it not empty. */
const COPY_LOCK_KEY = 0x737664;
export const lockForCopy = (trx: Trx) => trx.raw('SELECT pg_advisory_xact_lock(?)', [COPY_LOCK_KEY]);

async function columnTypes(trx: Trx, table: string): Promise<Map<string, string>> {
  if (!isPostgres(trx)) {
    const cols: Array<{ name: string; type: string }> = await trx.raw(`PRAGMA table_info("${table}")`);
    return new Map(cols.map((c) => [c.name, c.type.toLowerCase()]));
  }
  const rows: Array<{ column_name: string; data_type: string }> = await trx('information_schema.columns')
    .where({ table_schema: trx.raw('current_schema()'), table_name: table })
    .select('column_name', 'data_type');
  return new Map(rows.map((r) => [r.column_name, r.data_type]));
}

/**
 * The columns the target has, from SQLite: into SQLite (the source attached as `attachedAs`) in one
 * statement; into PostgreSQL in batches, 0/1 as booleans (dates and JSON are text on both).
 */
export async function copyTable(source: Db, trx: Trx, table: string, onBatch: (rows: number) => void, attachedAs?: string): Promise<number> {
  const types = await columnTypes(trx, table);
  const sourceColumns = new Set(((await source.raw(`PRAGMA table_info("${table}")`)) as Array<{ name: string }>).map((c) => c.name));
  const runtime = RUNTIME_COLUMNS[table] ?? [];
  const columns = [...types.keys()].filter((c) => sourceColumns.has(c) && !runtime.includes(c));
  const list = columns.map((c) => `"${c}"`).join(', ');
  if (attachedAs) {
    await trx.raw(`INSERT INTO main."${table}" (${list}) SELECT ${list} FROM "${attachedAs}"."${table}" ORDER BY rowid`);
    const copied = await countRows(trx, table);
    onBatch(copied);
    return copied;
  }
  const booleans = columns.filter((c) => types.get(c) === 'boolean');
  // PostgreSQL takes at most 65,535 parameters per statement; blobs (images) go a few rows at a time.
  const binary = columns.some((c) => types.get(c) === 'bytea');
  const batch = binary ? 4 : Math.max(1, Math.min(1000, Math.floor(60_000 / Math.max(1, columns.length))));
  let after = -Infinity;
  let copied = 0;
  for (;;) {
    const rows: Array<Record<string, unknown>> = await source.raw(`SELECT rowid AS "__rowid", ${list} FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`, [after, batch]);
    if (rows.length === 0) return copied;
    after = Number(rows[rows.length - 1].__rowid);
    const values = rows.map(({ __rowid, ...row }) => {
      for (const c of booleans) if (row[c] !== null && row[c] !== undefined) row[c] = Boolean(Number(row[c]));
      return row;
    });
    await trx(table).insert(values);
    copied += rows.length;
    onBatch(rows.length);
  }
}

/** Serial columns were copied with their values: each sequence past the largest. */
export async function resetSequences(trx: Trx, tables: string[]): Promise<void> {
  const serials: Array<{ table_name: string; column_name: string }> = await trx('information_schema.columns')
    .where({ table_schema: trx.raw('current_schema()') })
    .whereIn('table_name', tables)
    .where('column_default', 'like', 'nextval(%')
    .select('table_name', 'column_name');
  for (const { table_name: t, column_name: c } of serials) {
    await trx.raw(`SELECT setval(pg_get_serial_sequence(?, ?), COALESCE(MAX("${c}"), 1), MAX("${c}") IS NOT NULL) FROM "${t}"`, [t, c]);
  }
}
