import { deleteWhere } from '../db/batched-delete.js';
import { type Db, type Queryable, writeOn } from '../db/connect.js';

export interface SessionRow {
  id_hash: string;
  user_id: string | null;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export const insertSession = (db: Queryable, row: SessionRow) => writeOn(db)('sessions').insert(row);

export const findSessionRow = (db: Queryable, idHash: string): Promise<SessionRow | undefined> =>
  db('sessions').where({ id_hash: idHash }).first();

export const deleteSessionRow = (db: Queryable, idHash: string) => writeOn(db)('sessions').where({ id_hash: idHash }).delete();

export const deleteExpiredSessions = (db: Db, now: string) => deleteWhere(db, 'sessions', 'id_hash', (q) => q.where('expires_at', '<=', now));

/** Every session of one user (a password change signs them out everywhere). */
export const deleteUserSessions = (db: Queryable, userId: string): Promise<number> => writeOn(db)('sessions').where({ user_id: userId }).delete();

/** Ends the user's sessions beyond the newest `keep` (by creation, then hash). */
export const deleteSessionsBeyond = (db: Queryable, userId: string, keep: number): Promise<number> =>
  writeOn(db)('sessions')
    .where({ user_id: userId })
    .whereNotIn('id_hash', db('sessions').where({ user_id: userId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id_hash', order: 'desc' }]).limit(keep).select('id_hash'))
    .delete();
