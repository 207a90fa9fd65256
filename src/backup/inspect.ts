import { checkSqliteFile, fileKind } from '../db/sqlite-file.js';
import { backupErrors } from './errors.js';

/** The tables every svc database has had since its first migration. */
const SVC_TABLES = ['knex_migrations', 'workspaces', 'articles'];

/**
 * Refuse anything that is not a sound svc SQLite database: another kind of file, a PostgreSQL
 * dump, a damaged file (integrity_check), an SQLite database of something else.
 */
export async function checkSvcSqliteFile(file: string): Promise<void> {
  const kind = fileKind(file);
  if (kind === 'pg_dump') throw backupErrors.pgDumpFile(file);
  if (kind !== 'sqlite') throw backupErrors.notSqlite(file);
  const check = await checkSqliteFile(file).catch((err: Error) => {
    throw backupErrors.corrupt(file, [err.message]);
  });
  if (check.integrity.join('\n') !== 'ok') throw backupErrors.corrupt(file, check.integrity);
  const missing = SVC_TABLES.filter((t) => !check.tables.includes(t));
  if (missing.length > 0) throw backupErrors.notSvc(file, `it has no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}`);
}
