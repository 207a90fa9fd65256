import path from 'node:path';
import { AppError } from '../errors.js';
import { noSvcDatabase } from '../db/errors.js';

/** The refusals of backup, restore and db copy, worded once. */
export const backupErrors = {
  noDatabase: (file: string, chosenBy: string, nothingTo: string) => noSvcDatabase(file, chosenBy, nothingTo),
  outExists: (file: string) =>
    new AppError('backup_exists', 409, `${file} already exists: a backup never overwrites a file`, {
      // Not the date alone: a second backup the same day collides with that name too.
      hint: `Choose a name not taken yet, e.g. with the time: --out ${path.join(path.dirname(file), `svc-$(date -u +%Y%m%dT%H%M%SZ)${path.extname(file) || '.sqlite'}`)}`,
    }),
  outIsDatabaseFile: (file: string, database: string) =>
    new AppError('backup_out_invalid', 400, `${file} is one of the database's own files (beside ${database}): SQLite would delete or overwrite a backup there`, {
      hint: 'Write backups into a directory of their own, e.g. --out /var/backups/svc/svc-$(date +%F).sqlite',
    }),
  cannotWrite: (file: string, err: Error) =>
    new AppError('backup_unwritable', 500, `Cannot write the backup ${file}: ${err.message.replace(/^Cannot create (the data directory )?/, 'cannot create ')}`, {
      hint: 'Choose a directory for --out that the user svc runs as can write to (sudo -u svc ...).',
      cause: err,
    }),
  notFound: (file: string) => new AppError('backup_not_found', 404, `Backup file ${file} not found`),
  notSqlite: (file: string) =>
    new AppError('backup_invalid', 400, `${file} is not an svc backup: it is not an SQLite database`, {
      hint: 'Pass a file written by `svc backup` (or a copy of svc.sqlite).',
    }),
  pgDumpFile: (file: string) =>
    new AppError('backup_invalid', 400, `${file} is a PostgreSQL dump: svc restore reads SQLite backups`, {
      hint: `Restore it into a new PostgreSQL database (createdb svc_restored; pg_restore --no-owner --dbname postgres://.../svc_restored ${file}) and point the daemons at it; or stop every daemon first, then pg_restore --clean --if-exists --no-owner --dbname postgres://.../svc ${file} (docs/operations.md)`,
    }),
  notSvc: (file: string, why: string) =>
    new AppError('backup_invalid', 400, `${file} is not an svc database: ${why}`, {
      hint: 'Pass a file written by `svc backup` (or a copy of svc.sqlite).',
    }),
  corrupt: (file: string, problems: string[]) =>
    new AppError('backup_corrupt', 422, `${file} failed SQLite's integrity check: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`, {
      hint: 'Use another backup; this one cannot be trusted.',
    }),
  newer: (file: string, unknown: string[]) =>
    new AppError('backup_newer', 409, `${file} was made by a newer version of svc: it has ${unknown.length === 1 ? 'a migration' : `${unknown.length} migrations`} this svc does not know (${unknown.join(', ')})`, {
      hint: 'Restore it with the svc version that made it, or a newer one.',
      details: { unknown },
    }),
  missingMigrations: (file: string, missing: string[]) =>
    new AppError('backup_invalid', 400, `${file} is missing ${missing.length === 1 ? 'a migration' : `${missing.length} migrations`} that later migrations it has build on (${missing.join(', ')}); nothing was changed`, {
      hint: 'Use a file written by `svc backup`; this one was not made by svc\'s migrations.',
      details: { missing },
    }),
  rowsBreakSchema: (file: string, violations: Array<{ table: string; rule: string; rows: number }>) =>
    new AppError(
      'backup_invalid',
      400,
      `${file} holds rows svc's schema forbids, so nothing was changed: ${violations
        .slice(0, 5)
        .map((v) => `${v.table}: ${v.rows} row${v.rows === 1 ? '' : 's'} with ${v.rule}`)
        .join('; ')}${violations.length > 5 ? ` (and ${violations.length - 5} more)` : ''}`,
      {
        hint: 'Use another backup, or mend these rows in a copy of the file (sqlite3) and use that copy.',
        details: { violations },
      },
    ),
  rowsRefused: (file: string, table: string, err: Error) =>
    new AppError('backup_invalid', 400, `${file} holds rows of ${table} the target database refuses, so nothing was changed: ${driverMessage(err)}`, {
      hint: 'Use another backup, or mend these rows in a copy of the file (sqlite3) and use that copy.',
      details: { table },
      cause: err,
    }),
  daemonRunning: (file: string) =>
    new AppError('database_in_use', 409, `Cannot restore over ${file}: an svc daemon (or another restore) is using it`, {
      hint: 'Stop the daemon first (e.g. sudo systemctl stop svc), restore, then start it again.',
    }),
  inUse: (file: string) =>
    new AppError('database_in_use', 409, `Cannot restore over ${file}: another process has it open (an svc command or a script still running?)`, {
      hint: 'Stop the daemon and any running svc command on this data directory, then restore again.',
    }),
  restoreIntoPostgres: (chosenBy: string) =>
    new AppError('usage', 400, `svc restore restores SQLite installations; this one uses PostgreSQL (${chosenBy})`, {
      hint: 'Restore a PostgreSQL backup into a new database (createdb svc_restored; pg_restore --no-owner --dbname postgres://.../svc_restored FILE) and point the daemons at it; or stop every daemon first, then pg_restore --clean --if-exists --no-owner --dbname postgres://.../svc FILE (docs/operations.md)',
    }),
};

/** The driver's words without the statement knex puts before them (`insert into ... - invalid input ...`). */
function driverMessage(err: Error): string {
  const line = err.message.split('\n')[0];
  const at = line.indexOf(' - ');
  return /^(insert|update|delete|select) /i.test(line) && at > 0 ? line.slice(at + 3) : line;
}
