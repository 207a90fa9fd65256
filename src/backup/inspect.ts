import { checkSqliteFile, fileKind } from './sqlite-file.js';
import { backupErrors } from './errors.js';

/** The tables every svc database has had since its first migration. */
const SVC_TABLES = ['knex_migrations', 'workspaces', 'articles'];

/**
 * Refuse anything that is not a sound svc SQLite database: another kind of file, a PostgreSQL
 * dump, a damaged file (integrity_check), an SQLite database of something else. `file` is one
 * svc made (checkSqliteFile writes); refusals name `shown`, the file the user gave.
 */
export async function checkSvcSqliteFile(file: string, shown = file): Promise<void> {
  const kind = fileKind(file);
  if (kind === 'pg_dump') throw backupErrors.pgDumpFile(shown);
  if (kind !== 'sqlite') throw backupErrors.notSqlite(shown);
  const check = await checkSqliteFile(file).catch((err: Error) => {
    throw backupErrors.corrupt(shown, [err.message]);
  });
  if (check.integrity.join('\n') !== 'ok') throw backupErrors.corrupt(shown, check.integrity);
  const missing = SVC_TABLES.filter((t) => !check.tables.includes(t));
  if (missing.length > 0) throw backupErrors.notSvc(shown, `it has no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}`);
}
