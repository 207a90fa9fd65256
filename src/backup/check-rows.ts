import type { Db } from '../db/connect.js';
import { openDb } from '../db/connect.js';
import { ensurePrivateFile } from '../db/files.js';
import { migrateLatest, type MigrationStatus } from '../db/migrate.js';
import { tablesInDependencyOrder } from './table-copy.js';
import type { Logger } from '../lib/log.js';
import { backupErrors } from './errors.js';
import { removeSqliteFiles } from './files.js';

/** Rows of a backup that svc's schema forbids, per table and rule. */
export interface RowViolation {
  table: string;
  /** What the rows break, in words: `NULL in title`, `duplicate (workspace_id, slug)`, ... */
  rule: string;
  rows: number;
}

/**
 * Refuse a backup whose migrations svc cannot bring up to date: one made by a newer svc
 * (`backup_newer`), or one missing a migration that later ones it has build on.
 */
export function refuseUnfitMigrations(status: MigrationStatus, shown: string): void {
  if (status.unknown.length > 0) throw backupErrors.newer(shown, status.unknown);
  const last = status.applied[status.applied.length - 1];
  const gaps = last === undefined ? [] : status.pending.filter((m) => m < last);
  if (gaps.length > 0) throw backupErrors.missingMigrations(shown, gaps);
}

/**
 * Refuse (`backup_invalid`, naming each table and how many rows) a SQLite database whose rows
 * break svc's schema: NULL in a NOT NULL column, duplicates under a unique index or primary key,
 * a foreign key that names no row. The rules are read from `schema`, a database svc's own
 * migrations made (so a backup that dropped a constraint from its own tables is still held to
 * it); the rows from the database attached to its one connection as `alias`. Each rule is one
 * statement over a table: a scan, a sort (GROUP BY) or a join SQLite indexes itself, so even a
 * backup without indexes costs O(n log n).
 */
export async function refuseRowsBreakingSchema(schema: Db, alias: string, shown: string): Promise<void> {
  const violations = await rowsBreakingSchema(schema, alias);
  if (violations.length > 0) throw backupErrors.rowsBreakSchema(shown, violations);
}

/**
 * The same check for a SQLite file on its own (`svc db copy`): svc's schema is built in a
 * scratch file beside it, the file attached to it.
 */
export async function refuseFileBreakingSchema(file: string, scratch: string, shown: string, log?: Logger): Promise<void> {
  ensurePrivateFile(scratch);
  const schema = openDb({ client: 'sqlite3', filename: scratch, poolMax: 1 });
  try {
    await migrateLatest(schema, { log });
    await schema.raw('ATTACH DATABASE ? AS check_source', [file]);
    await refuseRowsBreakingSchema(schema, 'check_source', shown);
  } finally {
    await schema.destroy();
    removeSqliteFiles(scratch);
  }
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

async function rowsBreakingSchema(schema: Db, alias: string): Promise<RowViolation[]> {
  const src = q(alias);
  const sourceTables = new Set<string>(
    ((await schema.raw(`SELECT name FROM ${src}.sqlite_master WHERE type = 'table'`)) as Array<{ name: string }>).map((r) => r.name),
  );
  const out: RowViolation[] = [];
  for (const table of await tablesInDependencyOrder(schema)) {
    if (!sourceTables.has(table)) continue;
    const from = `${src}.${q(table)}`;
    const sourceColumns = new Set(((await schema.raw(`PRAGMA ${src}.table_info(${q(table)})`)) as ColumnInfo[]).map((c) => c.name));
    const columns: ColumnInfo[] = await schema.raw(`PRAGMA main.table_info(${q(table)})`);
    const pkColumns = columns.filter((c) => c.pk > 0);
    const rowidAlias = pkColumns.length === 1 && pkColumns[0].type.toUpperCase() === 'INTEGER';

    // NOT NULL (and primary keys, which PostgreSQL holds to NOT NULL too): one scan per table.
    const required = columns.filter((c) => (c.notnull || c.pk > 0) && !(rowidAlias && c.pk > 0) && sourceColumns.has(c.name));
    if (required.length > 0) {
      const [counts] = (await schema.raw(`SELECT ${required.map((c, i) => `coalesce(sum(${q(c.name)} IS NULL), 0) AS n${i}`).join(', ')} FROM ${from}`)) as Array<Record<string, number>>;
      required.forEach((c, i) => Number(counts[`n${i}`]) > 0 && out.push({ table, rule: `NULL in ${c.name}`, rows: Number(counts[`n${i}`]) }));
    }
    const absent = columns.filter((c) => c.notnull && c.dflt_value === null && !sourceColumns.has(c.name));
    if (absent.length > 0) {
      const rows = Number(((await schema.raw(`SELECT count(*) AS n FROM ${from}`)) as Array<{ n: number }>)[0].n);
      if (rows > 0) for (const c of absent) out.push({ table, rule: `no column ${c.name}`, rows });
    }

    // Unique indexes and primary keys: the rows of every group that shares a key.
    for (const index of (await schema.raw(`PRAGMA main.index_list(${q(table)})`)) as Array<{ name: string; unique: number; partial: number }>) {
      if (!index.unique) continue;
      const keys = ((await schema.raw(`PRAGMA main.index_info(${q(index.name)})`)) as Array<{ name: string | null }>).map((k) => k.name);
      if (keys.some((k) => k === null || !sourceColumns.has(k))) continue; // an expression, or defaults fill it
      const where = [...keys.map((k) => `${q(k!)} IS NOT NULL`), ...(index.partial ? [await partialCondition(schema, index.name)] : [])].join(' AND ');
      const list = keys.map((k) => q(k!)).join(', ');
      const rows = Number(((await schema.raw(`SELECT coalesce(sum(n), 0) AS n FROM (SELECT count(*) AS n FROM ${from} WHERE ${where} GROUP BY ${list} HAVING count(*) > 1)`)) as Array<{ n: number }>)[0].n);
      if (rows > 0) out.push({ table, rule: `duplicate (${keys.join(', ')})`, rows });
    }

    // Foreign keys: rows whose key names no row of the parent table in the same file.
    const fks: Array<{ id: number; table: string; from: string; to: string | null }> = await schema.raw(`PRAGMA main.foreign_key_list(${q(table)})`);
    for (const id of new Set(fks.map((f) => f.id))) {
      const parts = fks.filter((f) => f.id === id);
      const parent = parts[0].table;
      if (parts.some((p) => !sourceColumns.has(p.from))) continue;
      const set = parts.map((p) => `c.${q(p.from)} IS NOT NULL`).join(' AND ');
      let sql = `SELECT count(*) AS n FROM ${from} AS c WHERE ${set}`;
      if (sourceTables.has(parent)) {
        const to = parts.some((p) => p.to === null) ? (await primaryKey(schema, parent)) : parts.map((p) => p.to!);
        const on = parts.map((p, i) => `p.${q(to[i])} = c.${q(p.from)}`).join(' AND ');
        sql = `SELECT count(*) AS n FROM ${from} AS c LEFT JOIN ${src}.${q(parent)} AS p ON ${on} WHERE ${set} AND p.${q(to[0])} IS NULL`;
      }
      const rows = Number(((await schema.raw(sql)) as Array<{ n: number }>)[0].n);
      if (rows > 0) out.push({ table, rule: `${parts.map((p) => p.from).join(', ')} naming no ${parent} row`, rows });
    }
  }
  return out;
}

async function primaryKey(schema: Db, table: string): Promise<string[]> {
  const columns: ColumnInfo[] = await schema.raw(`PRAGMA main.table_info(${q(table)})`);
  return columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
}

/** The WHERE of a partial unique index, from its CREATE INDEX statement (svc's own schema). */
async function partialCondition(schema: Db, index: string): Promise<string> {
  const [row] = (await schema.raw(`SELECT sql FROM main.sqlite_master WHERE type = 'index' AND name = ?`, [index])) as Array<{ sql: string }>;
  const match = /\bwhere\b([\s\S]*)$/i.exec(row.sql);
  return match ? `(${match[1]})` : '1';
}
