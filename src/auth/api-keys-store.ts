import { type Queryable, writeOn } from '../db/connect.js';
import type { Scope } from './scopes.js';

type Row = Record<string, any>;

export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  userId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  userId: r.user_id,
  name: r.name,
  scopes: JSON.parse(r.scopes),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at ?? null,
  revokedAt: r.revoked_at ?? null,
});

export async function insertApiKey(db: Queryable, row: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { keyHash: string }): Promise<void> {
  await writeOn(db)('api_keys').insert({
    id: row.id,
    workspace_id: row.workspaceId,
    user_id: row.userId,
    name: row.name,
    scopes: JSON.stringify(row.scopes),
    key_hash: row.keyHash,
    created_at: row.createdAt,
  });
}

/** An active (not revoked) key by the hash of its value: one lookup on a unique index. */
export async function findActiveByHash(db: Queryable, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys').where({ key_hash: keyHash }).whereNull('revoked_at').first();
  return row ? toRecord(row) : undefined;
}

export async function findApiKey(db: Queryable, workspaceId: string, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await db('api_keys').where({ workspace_id: workspaceId, id }).first();
  return row ? toRecord(row) : undefined;
}

export async function listActive(db: Queryable, workspaceId: string): Promise<ApiKeyRecord[]> {
  return (await db('api_keys').where({ workspace_id: workspaceId }).whereNull('revoked_at').orderBy('created_at').orderBy('id')).map(toRecord);
}

export async function markRevoked(db: Queryable, id: string, at: string): Promise<number> {
  return writeOn(db)('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
}

/** Set last_used_at unless another call already did since `staleBefore` (lib/last-used.ts). */
export async function touchLastUsed(db: Queryable, id: string, at: string, staleBefore: string): Promise<void> {
  await writeOn(db)('api_keys')
    .where({ id })
    .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', staleBefore))
    .update({ last_used_at: at });
}
