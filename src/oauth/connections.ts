import type { Ctx } from '../context.js';
import { notFound } from '../errors.js';
import type { Scope } from '../auth/scopes.js';
import { iso, nowIso } from '../lib/clock.js';
import * as store from './store.js';

/** The revocation reason of connections whose user lost the membership (accounts/members.ts, tokens.ts); resolve.ts answers their tokens 403. */
export const MEMBERSHIP_REMOVED = 'membership_removed';

/** An agent connection as people see it (connections page, `svc connections list`). */
export interface Connection {
  id: string;
  /** returnsTo: where the client sends people back, as they should read it (redirectTarget). */
  client: { id: string; name: string | null; returnsTo: string | null };
  workspace: { id: string; name: string };
  user: { id: string; email: string };
  scopes: Scope[];
  status: 'active' | 'expired' | 'revoked';
  createdAt: string;
  lastUsedAt: string;
  revokedAt: string | null;
}

/** True when a connection last used at `lastUsedAt` has gone unused for oauth.connectionIdleExpiry. */
export const isIdle = (ctx: Ctx, lastUsedAt: string): boolean =>
  new Date(lastUsedAt).getTime() + ctx.config.oauth.connectionIdleExpiry <= ctx.clock.now().getTime();

/**
 * Where a redirect URI sends people, as they should read it (consent screen, connections): the
 * host of an https URI, and the whole URI for anything else. A private-use scheme's "host" is
 * whatever the app wrote (evilapp://claude.ai/callback is not claude.ai), and a loopback URI
 * goes to a program on the person's own machine.
 */
export function redirectTarget(uri: string): string {
  return URL.canParse(uri) && new URL(uri).protocol === 'https:' ? new URL(uri).host : uri;
}

const firstTarget = (uris: string[]): string | null => (uris[0] === undefined ? null : redirectTarget(uris[0]));

function present(ctx: Ctx, r: store.ConnectionListRow): Connection {
  return {
    id: r.id,
    client: { id: r.client_id, name: r.client_name, returnsTo: firstTarget(JSON.parse(r.redirect_uris) as string[]) },
    workspace: { id: r.workspace_id, name: r.workspace_name },
    user: { id: r.user_id, email: r.email },
    scopes: JSON.parse(r.scopes) as Scope[],
    status: r.revoked_at ? 'revoked' : isIdle(ctx, r.last_used_at) ? 'expired' : 'active',
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

/** Connections not revoked (expired ones included, marked), newest first. */
export async function listConnections(ctx: Ctx, filter: { userId?: string; workspaceId?: string } = {}): Promise<Connection[]> {
  return (await store.listConnectionRows(ctx.db, filter)).map((r) => present(ctx, r));
}

export async function getConnection(ctx: Ctx, id: string): Promise<Connection> {
  const [row] = await store.listConnectionRows(ctx.db, { id, includeRevoked: true });
  if (!row) throw notFound('connection', id, { hint: 'List connections with: svc connections list' });
  return present(ctx, row);
}

/** Revoke a connection and drop its tokens. Returns false when it was already revoked. */
export async function revokeConnection(ctx: Ctx, id: string, reason: string): Promise<boolean> {
  const conn = await store.findConnection(ctx.db, id);
  if (!conn) return false;
  const changed = await store.revokeConnectionRow(ctx.db, id, nowIso(ctx.clock), reason);
  if (changed) {
    ctx.log.info({ connectionId: id, reason }, 'oauth connection revoked');
    ctx.events.emit('auth.changed', { workspaceId: conn.workspace_id });
  }
  return changed;
}

/** Revoke as a person (page, CLI): not found unless it exists, and belongs to `userId` when given. */
export async function revokeConnectionAs(ctx: Ctx, id: string, by: { userId?: string; reason: string }): Promise<Connection> {
  const conn = await store.findConnection(ctx.db, id);
  if (!conn || (by.userId && conn.user_id !== by.userId)) throw notFound('connection', id, { hint: 'List connections with: svc connections list' });
  await revokeConnection(ctx, id, by.reason);
  return getConnection(ctx, id);
}

/** A used code or rotated refresh token is kept this long, so a replay still finds (and revokes) what it issued. */
const REPLAY_WINDOW_MS = 86_400_000;

/**
 * How long a revoked connection is kept (found by its id meanwhile, e.g. a repeated revoke). Every
 * approval of a client already connected revokes the connection it replaces, and nothing else
 * removed them: one signed-in user made 37 a second.
 */
export const REVOKED_CONNECTION_KEPT_MS = 30 * 86_400_000;

/**
 * How long a connection expired from disuse (isIdle) is kept after it expired: as long as a revoked
 * one, so meanwhile it is still listed, and its refresh token refused, as expired.
 */
export const EXPIRED_CONNECTION_KEPT_MS = REVOKED_CONNECTION_KEPT_MS;

/** Housekeeping for the cleanup job: expired requests, codes and access tokens, rotated refresh tokens, connections revoked or expired long ago. */
export async function purgeExpired(ctx: Ctx): Promise<{ requests: number; codes: number; accessTokens: number; refreshTokens: number; connections: number; expiredConnections: number }> {
  const now = ctx.clock.now();
  const replayed = iso(new Date(now.getTime() - Math.max(REPLAY_WINDOW_MS, ctx.config.oauth.refreshTokenGrace)));
  return {
    requests: await store.deleteExpiredRequests(ctx.db, iso(now)),
    accessTokens: await store.deleteExpiredAccessTokens(ctx.db, iso(now)),
    codes: await store.deleteOldCodes(ctx.db, iso(new Date(now.getTime() - REPLAY_WINDOW_MS))),
    refreshTokens: await store.deleteRotatedRefreshTokens(ctx.db, replayed),
    connections: await store.deleteRevokedConnections(ctx.db, iso(new Date(now.getTime() - REVOKED_CONNECTION_KEPT_MS))),
    expiredConnections: await store.deleteUnusedConnections(ctx.db, iso(new Date(now.getTime() - ctx.config.oauth.connectionIdleExpiry - EXPIRED_CONNECTION_KEPT_MS))),
  };
}
