import { AppError, conflict } from '../errors.js';

/** Unique-constraint violation on SQLite or PostgreSQL. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string } | null;
  return e?.code === '23505' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/i.test(e.message ?? ''));
}

export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '23503' || (e?.code === 'SQLITE_CONSTRAINT' && /FOREIGN KEY/i.test(e.message ?? ''));
}

/** Turn a driver error into an AppError with a message for a person; rethrow anything else. */
export function translateDbError(err: unknown, messages: { unique?: string; foreignKey?: string } = {}): never {
  if (err instanceof AppError) throw err;
  if (isUniqueViolation(err)) throw conflict(messages.unique ?? 'That already exists', { cause: err });
  if (isForeignKeyViolation(err)) {
    throw new AppError('invalid_reference', 400, messages.foreignKey ?? 'That refers to something that does not exist', { cause: err });
  }
  throw err;
}
