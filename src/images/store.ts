import { type Queryable, writeOn } from '../db/connect.js';
import type { ImageExt } from './sniff.js';
import { extOfType } from './sniff.js';

/** An image as listed: everything but its bytes. */
export interface ImageRecord {
  hash: string;
  contentType: string;
  ext: ImageExt;
  size: number;
  width: number | null;
  height: number | null;
  createdAt: string;
}

type Row = Record<string, any>;

const LISTED = ['hash', 'content_type', 'size', 'width', 'height', 'created_at'];

const toRecord = (r: Row): ImageRecord => ({
  hash: r.hash,
  contentType: r.content_type,
  ext: extOfType(r.content_type)!,
  size: Number(r.size),
  width: r.width === null ? null : Number(r.width),
  height: r.height === null ? null : Number(r.height),
  createdAt: r.created_at,
});

/** Store an image unless the workspace has it already (same hash: same bytes); true when it was new. */
export async function insertImage(db: Queryable, workspaceId: string, image: ImageRecord, bytes: Buffer): Promise<boolean> {
  const inserted = await writeOn(db)('images')
    .insert({ workspace_id: workspaceId, hash: image.hash, content_type: image.contentType, size: image.size, width: image.width, height: image.height, bytes, created_at: image.createdAt })
    .onConflict(['workspace_id', 'hash'])
    .ignore()
    .returning('hash');
  return inserted.length > 0;
}

export async function findImage(db: Queryable, workspaceId: string, hash: string): Promise<ImageRecord | undefined> {
  const row = await db('images').where({ workspace_id: workspaceId, hash }).first(LISTED);
  return row ? toRecord(row) : undefined;
}

/** Newest first, a page at a time. */
export async function listImageRows(db: Queryable, workspaceId: string, limit: number, offset: number): Promise<{ images: ImageRecord[]; total: number }> {
  const rows = await db('images').where({ workspace_id: workspaceId }).orderBy([{ column: 'created_at', order: 'desc' }, 'hash']).limit(limit).offset(offset).select(LISTED);
  const [{ n }] = await db('images').where({ workspace_id: workspaceId }).count({ n: '*' });
  return { images: rows.map(toRecord), total: Number(n) };
}

/**
 * Holds the workspace's row until the transaction ends (a no-op write, so it works on SQLite and
 * PostgreSQL): adds that read the workspace's total and then insert take turns, else on
 * PostgreSQL concurrent adds each saw room for themselves and together passed the bound.
 */
export async function lockWorkspaceImages(db: Queryable, workspaceId: string): Promise<void> {
  await writeOn(db)('workspaces').where({ id: workspaceId }).update({ plan: db.raw('??', ['plan']) });
}

/** Which of these hashes the workspace holds. */
export async function heldHashes(db: Queryable, workspaceId: string, hashes: string[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (let i = 0; i < hashes.length; i += 500) {
    for (const r of await db('images').where({ workspace_id: workspaceId }).whereIn('hash', hashes.slice(i, i + 500)).select('hash')) held.add(r.hash as string);
  }
  return held;
}

/** The bytes of every image the workspace holds. */
export async function workspaceImageBytes(db: Queryable, workspaceId: string): Promise<number> {
  const [{ n }] = await db('images').where({ workspace_id: workspaceId }).sum({ n: 'size' });
  return Number(n ?? 0);
}

export async function deleteImage(db: Queryable, workspaceId: string, hash: string): Promise<boolean> {
  return (await writeOn(db)('images').where({ workspace_id: workspaceId, hash }).delete()) > 0;
}

/** What the public URL serves: the same bytes whichever workspace holds them (the hash names the bytes). */
export async function servedImage(db: Queryable, hash: string): Promise<ImageRecord | undefined> {
  const row = await db('images').where({ hash }).first(LISTED);
  return row ? toRecord(row) : undefined;
}

export async function servedBytes(db: Queryable, hash: string): Promise<Buffer | undefined> {
  const row = await db('images').where({ hash }).first('bytes');
  return row ? Buffer.from(row.bytes) : undefined;
}
