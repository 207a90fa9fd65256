import { type Queryable, writeOn } from '../db/connect.js';

export interface BlogKeyRecord {
  workspaceId: string;
  connectorId: string;
  keyHash: string;
  keyHint: string;
  createdAt: string;
}

type Row = Record<string, any>;

const toRecord = (r: Row): BlogKeyRecord => ({ workspaceId: r.workspace_id, connectorId: r.connector_id, keyHash: r.key_hash, keyHint: r.key_hint, createdAt: r.created_at });

export async function findByWorkspace(db: Queryable, workspaceId: string): Promise<BlogKeyRecord | undefined> {
  const row = await db('blog_keys').where({ workspace_id: workspaceId }).first();
  return row ? toRecord(row) : undefined;
}

export async function findByHash(db: Queryable, keyHash: string): Promise<BlogKeyRecord | undefined> {
  const row = await db('blog_keys').where({ key_hash: keyHash }).first();
  return row ? toRecord(row) : undefined;
}

/** One key per workspace: insert, or replace the previous one (regenerate). */
export async function upsertKey(db: Queryable, rec: BlogKeyRecord): Promise<void> {
  await writeOn(db)('blog_keys')
    .insert({ workspace_id: rec.workspaceId, connector_id: rec.connectorId, key_hash: rec.keyHash, key_hint: rec.keyHint, created_at: rec.createdAt })
    .onConflict('workspace_id')
    .merge(['connector_id', 'key_hash', 'key_hint', 'created_at']);
}

export async function deleteKey(db: Queryable, workspaceId: string): Promise<number> {
  return writeOn(db)('blog_keys').where({ workspace_id: workspaceId }).delete();
}
