import type { Knex } from 'knex';
import { deleteWhere } from '../db/batched-delete.js';
import { type Db, type Queryable, writeOn } from '../db/connect.js';

export interface ClientRow {
  id: string;
  secret_hash: string | null;
  auth_method: string;
  client_name: string | null;
  redirect_uris: string;
  metadata: string;
  created_at: string;
  first_granted_at: string | null;
}

export interface RequestRow {
  id_hash: string;
  session_hash: string;
  client_id: string;
  params: string;
  expires_at: string;
}

export interface ConnectionRow {
  id: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  scopes: string;
  created_at: string;
  last_used_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  scopes: string;
  redirect_uri: string | null;
  code_challenge: string;
  resource: string | null;
  expires_at: string;
  used_at: string | null;
  connection_id: string | null;
}

export interface TokenRow {
  token_hash: string;
  connection_id: string;
  kind: 'access' | 'refresh';
  created_at: string;
  expires_at: string | null;
  rotated_at: string | null;
  /** Rotated refresh tokens: their successor, sealed (successor.ts); absent on rows of older versions. */
  successor?: string | null;
}

// Clients
export const insertClient = (db: Queryable, row: ClientRow) => writeOn(db)('oauth_clients').insert(row);
export const findClient = (db: Queryable, id: string): Promise<ClientRow | undefined> => db('oauth_clients').where({ id }).first();
export const markClientGranted = (db: Queryable, id: string, now: string) =>
  writeOn(db)('oauth_clients').where({ id }).whereNull('first_granted_at').update({ first_granted_at: now });
export const deleteUngrantedClients = (db: Db, createdBefore: string) =>
  deleteWhere(db, 'oauth_clients', 'id', (q) => q.whereNull('first_granted_at').andWhere('created_at', '<', createdBefore));

// Pending authorization requests (consent screen)
export const insertRequest = (db: Queryable, row: RequestRow) => writeOn(db)('oauth_requests').insert(row);
/** Forgets the session's pending requests beyond the newest `keep` (by expiry, then hash). */
export const deleteRequestsBeyond = (db: Queryable, sessionHash: string, keep: number): Promise<number> =>
  writeOn(db)('oauth_requests')
    .where({ session_hash: sessionHash })
    .whereNotIn('id_hash', db('oauth_requests').where({ session_hash: sessionHash }).orderBy([{ column: 'expires_at', order: 'desc' }, { column: 'id_hash', order: 'desc' }]).limit(keep).select('id_hash'))
    .delete();
export const findRequest = (db: Queryable, idHash: string): Promise<RequestRow | undefined> => db('oauth_requests').where({ id_hash: idHash }).first();
/** Deletes and reports whether this call consumed it (one decision per request). */
export const consumeRequest = async (db: Queryable, idHash: string): Promise<boolean> => (await writeOn(db)('oauth_requests').where({ id_hash: idHash }).delete()) > 0;
export const deleteExpiredRequests = (db: Db, now: string) => deleteWhere(db, 'oauth_requests', 'id_hash', (q) => q.where('expires_at', '<=', now));

// Codes
export const insertCode = (db: Queryable, row: CodeRow) => writeOn(db)('oauth_codes').insert(row);
export const findCode = (db: Queryable, hash: string): Promise<CodeRow | undefined> => db('oauth_codes').where({ code_hash: hash }).first();
/** Marks the code used; false when another exchange already did (single use, race-safe). */
export const claimCode = async (db: Queryable, hash: string, now: string): Promise<boolean> =>
  (await writeOn(db)('oauth_codes').where({ code_hash: hash }).whereNull('used_at').update({ used_at: now })) > 0;
export const setCodeConnection = (db: Queryable, hash: string, connectionId: string) =>
  writeOn(db)('oauth_codes').where({ code_hash: hash }).update({ connection_id: connectionId });
export const deleteOldCodes = (db: Db, expiredBefore: string) => deleteWhere(db, 'oauth_codes', 'code_hash', (q) => q.where('expires_at', '<', expiredBefore));

// Connections
export const insertConnection = (db: Queryable, row: ConnectionRow) => writeOn(db)('oauth_connections').insert(row);
export const findConnection = (db: Queryable, id: string): Promise<ConnectionRow | undefined> => db('oauth_connections').where({ id }).first();
/** With `staleBefore`, only when no other call recorded a use since then (lib/last-used.ts). */
export const touchConnection = (db: Queryable, id: string, now: string, staleBefore?: string) =>
  writeOn(db)('oauth_connections')
    .where({ id })
    .modify((q) => {
      if (staleBefore) q.where('last_used_at', '<=', staleBefore);
    })
    .update({ last_used_at: now });
export const revokeConnectionRow = async (db: Queryable, id: string, now: string, reason: string): Promise<boolean> => {
  const n = await writeOn(db)('oauth_connections').where({ id }).whereNull('revoked_at').update({ revoked_at: now, revoked_reason: reason });
  await writeOn(db)('oauth_tokens').where({ connection_id: id }).delete();
  return n > 0;
};
/**
 * Revoke every live connection of a user (in one workspace, or everywhere), drop their tokens,
 * and delete the codes they were approved but did not exchange yet. Returns the connections revoked.
 * `keepAccessTokens`: unexpired access tokens stay so that, until they expire, a call with one
 * is told why it is refused (a removed member gets the spec's 403, see resolve.ts) instead of
 * a bare 401; they no longer grant anything, and no refresh token is left.
 */
export async function revokeUserGrants(db: Queryable, filter: { userId: string; workspaceId?: string }, now: string, reason: string, opts: { keepAccessTokens?: boolean } = {}): Promise<number> {
  const scope = (q: Knex.QueryBuilder) => (filter.workspaceId ? q.where({ user_id: filter.userId, workspace_id: filter.workspaceId }) : q.where({ user_id: filter.userId }));
  await scope(writeOn(db)('oauth_codes')).whereNull('used_at').delete();
  const ids = (await scope(db('oauth_connections')).whereNull('revoked_at').select('id')).map((r: { id: string }) => r.id);
  if (ids.length === 0) return 0;
  const tokens = db('oauth_tokens').whereIn('connection_id', ids);
  await (opts.keepAccessTokens ? tokens.whereNot({ kind: 'access' }) : tokens).delete();
  return writeOn(db)('oauth_connections').whereIn('id', ids).whereNull('revoked_at').update({ revoked_at: now, revoked_reason: reason });
}

/** Live connections of one user for one client in one workspace (replaced by a new approval). */
export const findLiveConnections = (db: Queryable, where: { client_id: string; user_id: string; workspace_id: string }): Promise<ConnectionRow[]> =>
  db('oauth_connections').where(where).whereNull('revoked_at');

export interface ConnectionListRow extends ConnectionRow {
  client_name: string | null;
  redirect_uris: string;
  workspace_name: string;
  email: string;
}

export function listConnectionRows(db: Queryable, filter: { id?: string; userId?: string; workspaceId?: string; includeRevoked?: boolean }): Promise<ConnectionListRow[]> {
  const q = db('oauth_connections as c')
    .join('oauth_clients as k', 'k.id', 'c.client_id')
    .join('workspaces as w', 'w.id', 'c.workspace_id')
    .join('users as u', 'u.id', 'c.user_id')
    .select('c.*', 'k.client_name', 'k.redirect_uris', 'w.name as workspace_name', 'u.email')
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id');
  if (filter.id) q.where('c.id', filter.id);
  if (filter.userId) q.where('c.user_id', filter.userId);
  if (filter.workspaceId) q.where('c.workspace_id', filter.workspaceId);
  if (!filter.includeRevoked) q.whereNull('c.revoked_at');
  return q;
}

// Tokens
export const insertToken = (db: Queryable, row: TokenRow) => writeOn(db)('oauth_tokens').insert(row);
export const findToken = (db: Queryable, hash: string): Promise<TokenRow | undefined> => db('oauth_tokens').where({ token_hash: hash }).first();
/** Marks a refresh token rotated, keeping its sealed successor; false when a parallel refresh already did. */
export const claimRefresh = async (db: Queryable, hash: string, now: string, successor: string): Promise<boolean> =>
  (await writeOn(db)('oauth_tokens').where({ token_hash: hash, kind: 'refresh' }).whereNull('rotated_at').update({ rotated_at: now, successor })) > 0;
/** Connections revoked before `before` (their tokens went with the revocation). */
export const deleteRevokedConnections = (db: Db, before: string) => deleteWhere(db, 'oauth_connections', 'id', (q) => q.where('revoked_at', '<', before));
/** Connections never revoked and last used before `before` (their tokens go by the foreign key's cascade). */
export const deleteUnusedConnections = (db: Db, before: string) =>
  deleteWhere(db, 'oauth_connections', 'id', (q) => q.whereNull('revoked_at').andWhere('last_used_at', '<', before));
export const deleteExpiredAccessTokens = (db: Db, now: string) => deleteWhere(db, 'oauth_tokens', 'token_hash', (q) => q.where('expires_at', '<=', now).andWhere({ kind: 'access' }));
/** Refresh tokens rotated before `before`: past their grace, and past the time a replay of one still revokes its connection. */
export const deleteRotatedRefreshTokens = (db: Db, before: string) => deleteWhere(db, 'oauth_tokens', 'token_hash', (q) => q.where('rotated_at', '<', before).andWhere({ kind: 'refresh' }));
