import type { Ctx } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { writerOf } from '../db/connect.js';
import { AppError } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import { recordUse } from '../lib/last-used.js';
import { MEMBERSHIP_REMOVED, isIdle } from './connections.js';
import * as store from './store.js';
import { ACCESS_PREFIX } from './tokens.js';
import { NOT_A_MEMBER } from '../workspaces/roles.js';

/**
 * An OAuth access token -> the connection's principal, or null when the token is unknown,
 * expired or revoked, or the connection went unused for oauth.connectionIdleExpiry (the MCP
 * endpoint then answers 401 and the client asks for a new approval). Records the use.
 * Membership, role and subscription are checked by the caller on every call.
 */
export async function resolveOAuthAccessToken(ctx: Ctx, token: string): Promise<Principal | null> {
  if (!token.startsWith(ACCESS_PREFIX) || token.length > 200) return null;
  const row = await store.findToken(ctx.db, sha256Hex(token));
  const now = nowIso(ctx.clock);
  if (!row || row.kind !== 'access' || !row.expires_at || row.expires_at <= now) return null;
  const conn = await store.findConnection(ctx.db, row.connection_id);
  // Spec, agent connection: a user who lost the membership is refused with this message; the
  // removal revoked the connection (no refresh, no revival on re-adding), and its last access
  // tokens still say why until they expire.
  if (conn?.revoked_reason === MEMBERSHIP_REMOVED) throw new AppError('not_member', 403, NOT_A_MEMBER);
  if (!conn || conn.revoked_at || isIdle(ctx, conn.last_used_at)) return null;
  await recordUse(ctx, conn.last_used_at, (at, staleBefore) => store.touchConnection(writerOf(ctx.db), conn.id, at, staleBefore), { connectionId: conn.id });
  const client = await store.findClient(ctx.db, conn.client_id);
  return {
    kind: 'oauth',
    id: conn.id,
    userId: conn.user_id,
    workspaceId: conn.workspace_id,
    scopes: JSON.parse(conn.scopes) as Scope[],
    label: client?.client_name ?? conn.client_id,
  };
}
