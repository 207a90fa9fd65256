import type { Queryable } from '../db/connect.js';

export interface SessionRow {
  id_hash: string;
  user_id: string | null;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export const insertSession = (db: Queryable, row: SessionRow) => db('sessions').insert(row);

export const findSessionRow = (db: Queryable, idHash: string): Promise<SessionRow | undefined> =>
  db('sessions').where({ id_hash: idHash }).first();

export const deleteSessionRow = (db: Queryable, idHash: string) => db('sessions').where({ id_hash: idHash }).delete();

export const deleteExpiredSessions = (db: Queryable, now: string) => db('sessions').where('expires_at', '<=', now).delete();

export interface AttemptRow {
  key: string;
  failures: number;
  window_start: string;
}

export const findAttempts = (db: Queryable, keys: string[]): Promise<AttemptRow[]> => db('login_attempts').whereIn('key', keys);

/** One more failure for key; a window that started before `windowCutoff` starts again. */
export async function recordFailure(db: Queryable, key: string, now: string, windowCutoff: string): Promise<void> {
  const bumped = await db('login_attempts').where({ key }).andWhere('window_start', '>', windowCutoff).increment('failures', 1);
  if (bumped > 0) return;
  await db('login_attempts').insert({ key, failures: 1, window_start: now }).onConflict('key').merge({ failures: 1, window_start: now });
}

export const clearAttempts = (db: Queryable, key: string) => db('login_attempts').where({ key }).delete();

/** Every session of one user (a password change signs them out everywhere). */
export const deleteUserSessions = (db: Queryable, userId: string): Promise<number> => db('sessions').where({ user_id: userId }).delete();
