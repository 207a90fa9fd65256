import path from 'node:path';
import { AppError, FAILURE_WORDS, type FailureClass, conflict, toAppError } from '../errors.js';
import { withoutPassword } from './moved.js';

function violates(err: unknown, pgCode: string, sqliteWords: RegExp): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === pgCode || (e?.code === 'SQLITE_CONSTRAINT' && sqliteWords.test(e.message ?? ''));
}
export const isUniqueViolation = (err: unknown) => violates(err, '23505', /UNIQUE/i);
export const isForeignKeyViolation = (err: unknown) => violates(err, '23503', /FOREIGN KEY/i);

/** A constraint violation as an AppError for a person; anything else rethrown. */
export function translateDbError(err: unknown, messages: { unique: string }): never {
  if (err instanceof AppError) throw err;
  if (isUniqueViolation(err)) throw conflict(messages.unique, { cause: err });
  if (isForeignKeyViolation(err)) {
    throw new AppError('invalid_reference', 400, 'That refers to something that does not exist', { cause: err });
  }
  throw err;
}

/** Which database the settings name: the PostgreSQL URL without its password, or sqlite:<file>. */
export const databaseIdentity = (database: { client: string; url?: string; filename?: string }) =>
  database.client === 'pg' ? withoutPassword(database.url ?? '') : `sqlite:${path.resolve(database.filename ?? '')}`;

/**
 * "Cannot reach the database postgres://svc@db:5432/svc: it refused the connection (refused)";
 * null for any other error. `check`: what to check, from a caller that knows the settings' source.
 */
export function cannotReach(database: string, err: unknown, check?: string): AppError | null {
  const e = toAppError(err);
  const failure = e.details?.failure as FailureClass | undefined;
  if (e.status < 500 || e.details?.dependency !== 'database' || !failure) return null;
  // Named already at the first contact: only a caller with `check` adds to it.
  const named = e.details.database !== undefined;
  if (named && (!check || failure === 'corrupt')) return e;
  const reason = named ? String(e.details.reason ?? '') : e.hint ?? '';
  const verb = e.code === 'database_corrupt' ? 'Cannot use' : 'Cannot reach';
  // The settings' source unknown: name the settings, not a variable they may not have come from.
  check ??= database.startsWith('sqlite:') ? 'check the settings that name it (dataDir, database.filename), the file and its directory' : 'check the setting that names it (database.url) and that the server accepts svc';
  return new AppError(e.code, e.status, named ? e.message : `${verb} the database ${database}: it ${FAILURE_WORDS[failure]} (${failure})`, {
    expose: true,
    cause: named ? e.cause : err,
    hint: failure === 'corrupt' ? e.hint : [reason, check].filter(Boolean).join('; '),
    details: { ...e.details, database, reason },
  });
}

/** A command that only reads creates no database the operator never asked for (`why`: config/load.ts sqliteChosenBy). */
export function noSvcDatabase(filename: string, why: string, nothingTo?: string): AppError {
  return new AppError('database_not_found', 404, `There is no svc database at ${filename} (${why})${nothingTo ? `: nothing to ${nothingTo}` : ''}`, {
    hint: 'To create it: svc init (the database, a workspace and its first user) or svc migrate (the tables only); svc serve creates it too. If the data is elsewhere, point svc at it: dataDir or database.url in the config file the daemon reads (svc doctor names the one this command read).',
    details: { database: filename },
  });
}
