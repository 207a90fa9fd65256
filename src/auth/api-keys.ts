import { z } from 'zod';
import type { Ctx } from '../context.js';
import { writerOf } from '../db/connect.js';
import { notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { recordUse } from '../lib/last-used.js';
import { parseInput } from '../lib/validate.js';
import { requireRole } from '../workspaces/members.js';
import * as store from './api-keys-store.js';
import type { Principal } from './principal.js';
import { SCOPES, type Scope, isScope } from './scopes.js';

/** API keys look like `svc_api_` + 40 random base62 characters (decisions.md). */
export const API_KEY_PREFIX = 'svc_api_';

export type ApiKey = Omit<store.ApiKeyRecord, 'revokedAt'>;

const scopeList = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
  .superRefine((list, ctx) => {
    const unknown = list.filter((s) => !isScope(s));
    if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; allowed values are ${SCOPES.join(', ')}` });
    else if (list.length === 0) ctx.addIssue({ code: 'custom', message: `at least one scope is required; allowed values are ${SCOPES.join(', ')}` });
  })
  // Stored in the canonical order, without duplicates.
  .transform((list) => SCOPES.filter((s) => list.includes(s)) as Scope[]);

export const apiKeyCreateInput = z.object({
  name: z.string({ required_error: 'name is required' }).trim().min(1, 'name is required').max(100, 'name is at most 100 characters'),
  scopes: scopeList,
});
export type ApiKeyCreateInput = z.input<typeof apiKeyCreateInput>;

/**
 * Create an API key for a workspace, acting for `userId`, who must be an admin of it (403
 * otherwise). Unknown scopes or a missing name are a 400. The key value is in the result only:
 * just its sha256 is stored.
 */
export async function createApiKey(
  ctx: Ctx,
  input: { workspaceId: string; userId: string; name: unknown; scopes: unknown },
): Promise<{ id: string; name: string; scopes: Scope[]; key: string; createdAt: string }> {
  await requireRole(ctx, input.workspaceId, input.userId, 'admin');
  const data = parseInput(apiKeyCreateInput, { name: input.name, scopes: input.scopes ?? [] }, 'API key settings');
  const key = API_KEY_PREFIX + randomBase62(40);
  const record = { id: newId('key'), workspaceId: input.workspaceId, userId: input.userId, name: data.name, scopes: data.scopes, createdAt: nowIso(ctx.clock) };
  await store.insertApiKey(ctx.db, { ...record, keyHash: sha256Hex(key) });
  ctx.events.emit('auth.changed', { workspaceId: input.workspaceId });
  return { id: record.id, name: record.name, scopes: record.scopes, key, createdAt: record.createdAt };
}

/** Active keys of the workspace (never the key value, which is not stored). */
export async function listApiKeys(ctx: Ctx, workspaceId: string): Promise<ApiKey[]> {
  return (await store.listActive(ctx.db, workspaceId)).map(({ revokedAt: _r, ...k }) => k);
}

/** Revoke a key: the very next call made with it is refused (401), in every process. */
export async function revokeApiKey(ctx: Ctx, workspaceId: string, id: string): Promise<ApiKey> {
  const key = await store.findApiKey(ctx.db, workspaceId, id);
  if (!key || key.revokedAt) throw notFound('API key', id, { hint: 'List keys with: svc api-keys list' });
  await store.markRevoked(ctx.db, id, nowIso(ctx.clock));
  ctx.events.emit('auth.changed', { workspaceId });
  const { revokedAt: _r, ...rest } = key;
  return rest;
}

/**
 * A bearer token -> the API key's principal, or null when it is not an active API key.
 * Read from the database on every call, so a revocation in another process applies at once.
 */
export async function resolveApiKey(ctx: Ctx, token: string): Promise<Principal | null> {
  if (!token.startsWith(API_KEY_PREFIX) || token.length > 200) return null;
  const key = await store.findActiveByHash(ctx.db, sha256Hex(token));
  if (!key) return null;
  await recordUse(ctx, key.lastUsedAt, (at, staleBefore) => store.touchLastUsed(writerOf(ctx.db), key.id, at, staleBefore), { keyId: key.id });
  return { kind: 'api_key', id: key.id, userId: key.userId, workspaceId: key.workspaceId, scopes: key.scopes, label: key.name };
}

export const isApiKeyToken = (token: string): boolean => token.startsWith(API_KEY_PREFIX);
