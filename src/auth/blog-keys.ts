import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { conflict, notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { ensureConnector } from '../connectors/store.js';
import { bumpContentVersion } from '../workspaces/store.js';
import type { Workspace } from '../workspaces/types.js';
import * as store from './blog-keys-store.js';

/** Fixed prefix of blog keys (decisions.md), so they are recognisable in leaks and secret scanners. */
export const BLOG_KEY_PREFIX = 'svc_blog_';

export const hashBlogKey = (key: string): string => sha256Hex(key);

export interface BlogKeyInfo {
  workspaceId: string;
  workspace: string;
  connectorId: string;
  /** Prefix and last characters only; the key itself is never stored. */
  hint: string;
  createdAt: string;
}

export interface NewBlogKey extends BlogKeyInfo {
  /** The key: shown once. */
  key: string;
}

/** Create the workspace's blog key (and its headless connector when missing). Refused when one exists. */
export async function generateBlogKey(ctx: Ctx, ws: Workspace): Promise<NewBlogKey> {
  const existing = await store.findByWorkspace(ctx.db, ws.id);
  if (existing) {
    throw conflict(`Workspace ${ws.name} already has a blog key (${existing.keyHint})`, { hint: `Replace it with: svc blog-key regenerate --workspace ${ws.name}` });
  }
  return issue(ctx, ws);
}

/** Replace the blog key: the old one stops working at once, in every process (the content version moves). */
export const regenerateBlogKey = (ctx: Ctx, ws: Workspace): Promise<NewBlogKey> => issue(ctx, ws);

export async function showBlogKey(ctx: Ctx, ws: Workspace): Promise<BlogKeyInfo> {
  const rec = await store.findByWorkspace(ctx.db, ws.id);
  if (!rec) throw notFound('blog key', undefined, { hint: `Workspace ${ws.name} has no blog key. Create one with: svc blog-key generate --workspace ${ws.name}` });
  return info(ws, rec);
}

/** Delete the blog key: the content API refuses it at once. */
export async function revokeBlogKey(ctx: Ctx, ws: Workspace): Promise<BlogKeyInfo> {
  const rec = await store.findByWorkspace(ctx.db, ws.id);
  if (!rec) throw notFound('blog key', undefined, { hint: `Workspace ${ws.name} has no blog key.` });
  await withTransaction(ctx.db, async (trx) => {
    await store.deleteKey(trx, ws.id);
    await bumpContentVersion(trx, ws.id);
  });
  ctx.events.emit('auth.changed', { workspaceId: ws.id });
  return info(ws, rec);
}

/** The workspace a presented key belongs to (by hash), or undefined. */
export async function lookupBlogKey(ctx: Pick<Ctx, 'db'>, key: string): Promise<{ workspaceId: string; keyHash: string } | undefined> {
  if (!key.startsWith(BLOG_KEY_PREFIX) || key.length > 200) return undefined;
  const rec = await store.findByHash(ctx.db, hashBlogKey(key));
  return rec ? { workspaceId: rec.workspaceId, keyHash: rec.keyHash } : undefined;
}

/** The current key hash of a workspace (undefined when it has none). */
export async function currentKeyHash(ctx: Pick<Ctx, 'db'>, workspaceId: string): Promise<string | undefined> {
  return (await store.findByWorkspace(ctx.db, workspaceId))?.keyHash;
}

async function issue(ctx: Ctx, ws: Workspace): Promise<NewBlogKey> {
  const key = BLOG_KEY_PREFIX + randomBase62(32);
  const now = nowIso(ctx.clock);
  const rec = await withTransaction(ctx.db, async (trx) => {
    const connector = await ensureConnector(trx, ws.id, 'headless', now);
    const record: store.BlogKeyRecord = { workspaceId: ws.id, connectorId: connector.id, keyHash: hashBlogKey(key), keyHint: `${BLOG_KEY_PREFIX}...${key.slice(-4)}`, createdAt: now };
    await store.upsertKey(trx, record);
    // Daemons check this version before serving: the old key is refused from the next request on.
    await bumpContentVersion(trx, ws.id);
    return record;
  });
  ctx.events.emit('auth.changed', { workspaceId: ws.id });
  return { ...info(ws, rec), key };
}

const info = (ws: Workspace, rec: store.BlogKeyRecord): BlogKeyInfo => ({ workspaceId: ws.id, workspace: ws.name, connectorId: rec.connectorId, hint: rec.keyHint, createdAt: rec.createdAt });
