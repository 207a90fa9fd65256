import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Workspace } from '../workspaces/types.js';
import { imageErrors } from './errors.js';
import { type Sniffed, sniffImage } from './sniff.js';
import { type ImageRecord, deleteImage, findImage, insertImage, heldHashes, listImageRows, lockWorkspaceImages, servedBytes, servedImage, workspaceImageBytes } from './store.js';

/** A stored image with the URL svc serves it at. */
export interface StoredImage extends ImageRecord {
  url: string;
}

/** A checked image, not stored yet: its hash, type and URL. */
export interface CheckedImage extends Sniffed {
  hash: string;
  size: number;
  url: string;
}

/** The public URL of an image: the daemon's base URL, `/media/`, the SHA-256 of its bytes and its type's extension. */
export const mediaUrl = (ctx: Pick<Ctx, 'config'>, hash: string, ext: string): string => `${ctx.config.server.baseUrl.replace(/\/+$/, '')}/media/${hash}.${ext}`;

const withUrl = (ctx: Pick<Ctx, 'config'>, r: ImageRecord): StoredImage => ({ ...r, url: mediaUrl(ctx, r.hash, r.ext) });

/** Size, type (from the bytes) and wholeness checked; `name` says which image in refusals. */
export function checkImage(ctx: Pick<Ctx, 'config'>, bytes: Buffer, name: string): CheckedImage {
  const max = ctx.config.images.maxBytes;
  if (bytes.length > max) throw imageErrors.tooLarge(name, bytes.length, max);
  const sniffed = sniffImage(bytes, name);
  const hash = sha256Hex(bytes);
  return { ...sniffed, hash, size: bytes.length, url: mediaUrl(ctx, hash, sniffed.ext) };
}

/**
 * Refuses (image_store_full) images that together would pass images.workspaceMaxBytes, counting
 * only those the workspace does not hold, before any is stored; `named(count)` says what they
 * are. Each add is still checked (another may store meanwhile).
 */
export async function checkRoomFor(ctx: Ctx, ws: Workspace, images: Array<{ hash: string; size: number }>, named: (count: number) => string): Promise<void> {
  const sizes = new Map(images.map((f) => [f.hash, f.size]));
  if (sizes.size === 0) return;
  const held = await heldHashes(ctx.db, ws.id, [...sizes.keys()]);
  const fresh = [...sizes].filter(([hash]) => !held.has(hash));
  const need = fresh.reduce((n, [, size]) => n + size, 0);
  const total = need === 0 ? 0 : await workspaceImageBytes(ctx.db, ws.id);
  const max = ctx.config.images.workspaceMaxBytes;
  if (need > 0 && total + need > max) throw imageErrors.storeFull(named(fresh.length), need, total, max, fresh.length !== 1);
}

/** Check and store an image in the workspace: stored once however often it is added (`added` false then). */
export async function addImage(ctx: Ctx, ws: Workspace, bytes: Buffer, name: string): Promise<StoredImage & { added: boolean }> {
  const image = checkImage(ctx, bytes, name);
  const record: ImageRecord = { hash: image.hash, contentType: image.contentType, ext: image.ext, size: image.size, width: image.width, height: image.height, createdAt: ctx.clock.now().toISOString() };
  return withTransaction(ctx.db, async (trx) => {
    const existing = await findImage(trx, ws.id, image.hash);
    if (existing) return { ...withUrl(ctx, existing), added: false };
    await lockWorkspaceImages(trx, ws.id);
    const held = await workspaceImageBytes(trx, ws.id);
    const max = ctx.config.images.workspaceMaxBytes;
    if (held + image.size > max) throw imageErrors.storeFull(name, image.size, held, max);
    const added = await insertImage(trx, ws.id, record, bytes);
    const stored = added ? record : (await findImage(trx, ws.id, image.hash))!;
    return { ...withUrl(ctx, stored), added };
  });
}

/**
 * An image file's bytes, its size checked before it is read (a file that grows meanwhile is read
 * no further than the limit allows). With `within`, the file (its symlinks followed) must lie in
 * that folder: a path leading out of it is refused.
 */
export async function readImageFile(file: string, max: number, within?: string): Promise<Buffer> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (err) {
    throw new AppError('file_not_found', 400, (err as NodeJS.ErrnoException).code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(err as Error).message}`);
  }
  if (within !== undefined) {
    const root = await realpath(within);
    if (real !== root && !real.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) {
      throw new AppError('image_outside_source', 400, `${file} lies outside the folder being imported (${within})`, { hint: 'Import the folder that holds both the posts and their images.' });
    }
  }
  const handle = await open(real, 'r');
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new AppError('file_not_found', 400, `${file} is not a file`);
    if (info.size > max) throw imageErrors.tooLarge(file, info.size, max);
    const buffer = Buffer.alloc(Math.min(info.size, max) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) throw imageErrors.tooLarge(file, length, max);
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

const PAGE_MAX = 500;

export async function listImages(ctx: Ctx, ws: Workspace, page: { limit?: number; offset?: number } = {}): Promise<{ images: StoredImage[]; total: number; limit: number; offset: number }> {
  const limit = Math.min(Math.max(1, page.limit ?? 100), PAGE_MAX);
  const offset = Math.max(0, page.offset ?? 0);
  const { images, total } = await listImageRows(ctx.db, ws.id, limit, offset);
  return { images: images.map((i) => withUrl(ctx, i)), total, limit, offset };
}

/** The hash an image is named by: its 64 hex digits, or its URL (or `<hash>.<ext>`). */
export function imageHash(ref: string): string {
  const m = /([0-9a-f]{64})(?:\.[a-z]+)?\/?$/i.exec(ref.trim());
  if (!m) throw new AppError('invalid_parameter', 400, `"${ref}" names no image: give its URL or the 64 hex digits of its hash`, { details: { parameter: 'image' } });
  return m[1].toLowerCase();
}

export async function getImage(ctx: Ctx, ws: Workspace, ref: string): Promise<StoredImage> {
  const hash = imageHash(ref);
  const found = await findImage(ctx.db, ws.id, hash);
  if (!found) throw imageErrors.notFound(hash);
  return withUrl(ctx, found);
}

/** The workspace's articles whose body or featured image use the image (their slugs): a removal breaks them. */
export async function imageUsers(ctx: Ctx, ws: Workspace, hash: string): Promise<string[]> {
  const rows = await ctx.db('articles')
    .where({ workspace_id: ws.id })
    .andWhere((q) => q.where('body_markdown', 'like', `%/media/${hash}.%`).orWhere('featured_image_url', 'like', `%/media/${hash}.%`))
    .orderBy('slug')
    .select('slug');
  return rows.map((r: { slug: string }) => r.slug);
}

export async function removeImage(ctx: Ctx, ws: Workspace, ref: string): Promise<StoredImage> {
  const image = await getImage(ctx, ws, ref);
  await withTransaction(ctx.db, (trx) => deleteImage(trx, ws.id, image.hash));
  return image;
}

/** What `/media/<hash>.<ext>` serves, whichever workspace holds the bytes (the hash names them): its record, then its bytes. */
export const publicImage = (ctx: Pick<Ctx, 'db'>, hash: string): Promise<ImageRecord | undefined> => servedImage(ctx.db, hash);
export const publicImageBytes = (ctx: Pick<Ctx, 'db'>, hash: string): Promise<Buffer | undefined> => servedBytes(ctx.db, hash);
