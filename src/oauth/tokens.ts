import type { Ctx } from '../context.js';
import type { Scope } from '../auth/scopes.js';
import type { Trx } from '../db/connect.js';
import { withTransaction } from '../db/tx.js';
import { iso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { findMembership } from '../workspaces/members.js';
import { NOT_A_MEMBER } from '../workspaces/roles.js';
import { findMembership as findMembershipRow, lockWorkspaces } from '../workspaces/store.js';
import type { Client } from './clients.js';
import { MEMBERSHIP_REMOVED, isIdle, revokeConnection } from './connections.js';
import { oauthError } from './errors.js';
import { isOurResource, resourceOf } from './metadata.js';
import { verifyS256 } from './pkce.js';
import * as store from './store.js';
import { openSuccessor, sealSuccessor } from './successor.js';

/** Opaque tokens with a recognisable prefix (the MCP endpoint tells them from API keys). */
export const ACCESS_PREFIX = 'svc_oat_';
const REFRESH_PREFIX = 'svc_ort_';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** New access and refresh tokens (not stored yet). */
function newTokens(): { access: string; refresh: string } {
  return { access: ACCESS_PREFIX + randomBase62(43), refresh: REFRESH_PREFIX + randomBase62(43) };
}

/**
 * Stores the hashes of an access token and, unless `refreshStored`, of its refresh token, and
 * answers them both.
 */
async function issue(ctx: Ctx, db: Trx | Ctx['db'], connectionId: string, scopes: Scope[], tokens: { access: string; refresh: string }, refreshStored = false): Promise<TokenResponse> {
  const now = ctx.clock.now();
  const ttl = ctx.config.oauth.accessTokenTtl;
  await store.insertToken(db, { token_hash: sha256Hex(tokens.access), connection_id: connectionId, kind: 'access', created_at: iso(now), expires_at: iso(new Date(now.getTime() + ttl)), rotated_at: null });
  if (!refreshStored) await store.insertToken(db, { token_hash: sha256Hex(tokens.refresh), connection_id: connectionId, kind: 'refresh', created_at: iso(now), expires_at: null, rotated_at: null });
  return { access_token: tokens.access, token_type: 'Bearer', expires_in: Math.max(1, Math.round(ttl / 1000)), refresh_token: tokens.refresh, scope: scopes.join(' ') };
}

function checkResource(ctx: Ctx, resource: string | undefined): void {
  if (resource !== undefined && !isOurResource(ctx.config, resource)) throw oauthError('invalid_target', `resource must be ${resourceOf(ctx.config)}`);
}

export interface CodeGrant {
  code?: string;
  codeVerifier?: string;
  redirectUri?: string;
  resource?: string;
}

/** authorization_code grant: single use, PKCE S256, same redirect URI, creates the connection. */
export async function exchangeCode(ctx: Ctx, client: Client, grant: CodeGrant): Promise<TokenResponse> {
  if (!grant.code) throw oauthError('invalid_request', 'code is required');
  if (!grant.codeVerifier) throw oauthError('invalid_request', 'code_verifier is required (PKCE)');
  checkResource(ctx, grant.resource);
  const hash = sha256Hex(grant.code);
  const code = await store.findCode(ctx.db, hash);
  if (!code || code.client_id !== client.id) throw oauthError('invalid_grant', 'The authorization code is invalid');
  const now = ctx.clock.now();
  if (code.used_at) {
    // RFC 6749 4.1.2: a code presented twice revokes what the first exchange issued.
    if (code.connection_id) await revokeConnection(ctx, code.connection_id, 'code_reuse');
    throw oauthError('invalid_grant', 'The authorization code was already used; the tokens it issued are revoked');
  }
  if (code.expires_at <= iso(now)) throw oauthError('invalid_grant', 'The authorization code has expired; approve the connection again');
  const expectedRedirect = code.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : null);
  if (code.redirect_uri !== null ? grant.redirectUri !== code.redirect_uri : grant.redirectUri !== undefined && grant.redirectUri !== expectedRedirect) {
    throw oauthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  if (!verifyS256(grant.codeVerifier, code.code_challenge)) throw oauthError('invalid_grant', 'PKCE verification failed: code_verifier does not match the code_challenge');

  const scopes = JSON.parse(code.scopes) as Scope[];
  const result = await withTransaction(ctx.db, async (trx) => {
    // The membership is checked here only, under the lock a membership change takes
    // (accounts/members.ts): a member removed meanwhile gets no connection that re-adding them revives.
    await lockWorkspaces(trx, [code.workspace_id]);
    if (!(await findMembershipRow(trx, code.workspace_id, code.user_id))) return 'not_member' as const;
    if (!(await store.claimCode(trx, hash, iso(now)))) return null;
    // One live connection per user, workspace and client: a new approval replaces the old one.
    for (const old of await store.findLiveConnections(trx, { client_id: client.id, user_id: code.user_id, workspace_id: code.workspace_id })) {
      await store.revokeConnectionRow(trx, old.id, iso(now), 'replaced');
    }
    const connectionId = newId('oac');
    await store.insertConnection(trx, {
      id: connectionId, client_id: client.id, user_id: code.user_id, workspace_id: code.workspace_id,
      scopes: code.scopes, created_at: iso(now), last_used_at: iso(now), revoked_at: null, revoked_reason: null,
    });
    await store.setCodeConnection(trx, hash, connectionId);
    return issue(ctx, trx, connectionId, scopes, newTokens());
  });
  if (result === 'not_member') throw oauthError('invalid_grant', NOT_A_MEMBER);
  if (!result) throw oauthError('invalid_grant', 'The authorization code was already used');
  ctx.events.emit('auth.changed', { workspaceId: code.workspace_id });
  return result;
}

/**
 * refresh_token grant with rotation. A rotated token still works for oauth.refreshTokenGrace
 * (clients refresh in parallel), answered with the same successor each time; presented later,
 * it revokes the whole connection (a replay).
 */
export async function refreshTokens(ctx: Ctx, client: Client, grant: { refreshToken?: string; scope?: string; resource?: string }): Promise<TokenResponse> {
  if (!grant.refreshToken) throw oauthError('invalid_request', 'refresh_token is required');
  checkResource(ctx, grant.resource);
  const invalid = oauthError('invalid_grant', 'The refresh token is invalid, expired or revoked');
  const hash = sha256Hex(grant.refreshToken);
  const token = await store.findToken(ctx.db, hash);
  if (!token || token.kind !== 'refresh') throw invalid;
  const conn = await store.findConnection(ctx.db, token.connection_id);
  if (!conn || conn.client_id !== client.id || conn.revoked_at) throw invalid;
  // Removing a member revokes their connections (accounts/members.ts); this also refuses one
  // whose membership ended any other way (spec: access ends with the membership).
  if (!(await findMembership(ctx, conn.workspace_id, conn.user_id))) {
    await revokeConnection(ctx, conn.id, MEMBERSHIP_REMOVED);
    throw oauthError('invalid_grant', NOT_A_MEMBER);
  }
  const now = ctx.clock.now();
  if (isIdle(ctx, conn.last_used_at)) {
    await revokeConnection(ctx, conn.id, 'expired');
    throw oauthError('invalid_grant', 'This connection expired after going unused; approve it again in the browser');
  }
  const scopes = JSON.parse(conn.scopes) as Scope[];
  const asked = (grant.scope ?? '').split(/\s+/).filter((s) => s && s !== 'offline_access');
  if (asked.some((s) => !scopes.includes(s as Scope))) throw oauthError('invalid_scope', `This connection was granted only: ${scopes.join(' ')}`);

  const result = await withTransaction(ctx.db, async (trx) => {
    const next = newTokens();
    if (await store.claimRefresh(trx, hash, iso(now), sealSuccessor(grant.refreshToken!, next.refresh))) {
      await store.touchConnection(trx, conn.id, iso(now));
      return issue(ctx, trx, conn.id, scopes, next);
    }
    const current = await store.findToken(trx, hash);
    const rotatedAt = current?.rotated_at ? new Date(current.rotated_at).getTime() : 0;
    if (!current || now.getTime() - rotatedAt > ctx.config.oauth.refreshTokenGrace) return null;
    // Within the grace (clients refresh in parallel): the same successor again, with a new
    // access token, never another independent refresh token. A token rotated by an older
    // version has no successor kept: it gets a new pair, as before.
    const successor = current.successor ? openSuccessor(grant.refreshToken!, current.successor) : undefined;
    const kept = successor !== undefined && (await store.findToken(trx, sha256Hex(successor))) !== undefined;
    await store.touchConnection(trx, conn.id, iso(now));
    return kept ? issue(ctx, trx, conn.id, scopes, { access: next.access, refresh: successor }, true) : issue(ctx, trx, conn.id, scopes, next);
  });
  if (!result) {
    await revokeConnection(ctx, conn.id, 'refresh_token_reuse');
    ctx.log.warn({ connectionId: conn.id, clientId: client.id }, 'rotated refresh token presented after the grace period: connection revoked');
    throw oauthError('invalid_grant', 'This refresh token was already used; the connection is revoked for safety. Approve it again in the browser');
  }
  return result;
}

/** RFC 7009: revoking either token ends the connection. Unknown tokens are not an error. */
export async function revokeToken(ctx: Ctx, client: Client, token: string | undefined): Promise<void> {
  if (!token) throw oauthError('invalid_request', 'token is required');
  const row = await store.findToken(ctx.db, sha256Hex(token));
  if (!row) return;
  const conn = await store.findConnection(ctx.db, row.connection_id);
  if (!conn || conn.client_id !== client.id) return;
  await revokeConnection(ctx, conn.id, 'client');
}
