import type { Ctx } from '../context.js';
import { iso, nowIso } from '../lib/clock.js';
import { randomBase62, safeEqual, sha256Hex } from '../lib/crypto.js';
import { isId, newId } from '../lib/ids.js';
import { oauthError } from './errors.js';
import { type ClientMetadata, parseClientMetadata } from './metadata.js';
import * as store from './store.js';

/** A registered client (RFC 7591). */
export interface Client {
  id: string;
  name: string | null;
  authMethod: AuthMethod;
  redirectUris: string[];
  createdAt: string;
}

export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

const toClient = (r: store.ClientRow): Client => ({
  id: r.id,
  name: r.client_name,
  authMethod: r.auth_method as AuthMethod,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  createdAt: r.created_at,
});

// Schemes a native app must never register: they run code or read local data in the browser.
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ws:', 'wss:', 'ftp:', 'mailto:']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const isLoopbackHttp = (u: URL) => u.protocol === 'http:' && LOOPBACK.has(u.hostname);

/** https, http on a loopback host (any port, RFC 8252), or a native app's private-use scheme. */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return `${uri} is not a URL`;
  const u = new URL(uri);
  if (u.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:') return isLoopbackHttp(u) ? null : `${uri} uses http on a non-loopback host: use https, or http://127.0.0.1 / http://localhost`;
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `${uri} uses a scheme that cannot be a redirect URI`;
  return null;
}

/** The registered URI that `requested` stands for: exact, or loopback with another port (RFC 8252 7.3). */
export function matchRedirectUri(client: Client, requested: string | undefined): string | null {
  if (requested === undefined) return client.redirectUris.length === 1 ? client.redirectUris[0] : null;
  if (client.redirectUris.includes(requested)) return requested;
  if (!URL.canParse(requested)) return null;
  const r = new URL(requested);
  if (!isLoopbackHttp(r)) return null;
  for (const registered of client.redirectUris) {
    const g = new URL(registered);
    if (isLoopbackHttp(g) && g.hostname === r.hostname && g.pathname === r.pathname && g.search === r.search) return requested;
  }
  return null;
}

export interface RegistrationResponse extends ClientMetadata {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
}

/** RFC 7591 registration. The response echoes what was sent (unknown fields dropped, no nulls). */
export async function registerClient(ctx: Ctx, body: unknown): Promise<RegistrationResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw oauthError('invalid_client_metadata', 'The body must be a JSON object of client metadata');
  const parsed = parseClientMetadata(body);
  if (!parsed.ok) {
    const code = parsed.field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw oauthError(code, `${parsed.field || 'metadata'}: ${parsed.message}`);
  }
  const meta = Object.fromEntries(Object.entries(parsed.value).filter(([, v]) => v !== undefined && v !== null)) as ClientMetadata;
  if (meta.redirect_uris.length === 0) throw oauthError('invalid_redirect_uri', 'redirect_uris needs at least one URI');
  if (meta.redirect_uris.length > 20) throw oauthError('invalid_redirect_uri', 'redirect_uris takes at most 20 URIs');
  for (const uri of meta.redirect_uris) {
    const problem = uri.length > 2000 ? 'A redirect URI is longer than 2000 characters' : redirectUriProblem(uri);
    if (problem) throw oauthError('invalid_redirect_uri', problem);
  }
  const method = (meta.token_endpoint_auth_method ?? 'client_secret_basic') as AuthMethod; // RFC 7591 default
  if (!AUTH_METHODS.includes(method)) {
    throw oauthError('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  if (meta.grant_types && (!meta.grant_types.includes('authorization_code') || meta.grant_types.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))) {
    throw oauthError('invalid_client_metadata', 'grant_types must include authorization_code and may add refresh_token only');
  }
  if (meta.response_types && meta.response_types.some((t) => t !== 'code')) throw oauthError('invalid_client_metadata', 'response_types supports code only');
  if (meta.client_name && meta.client_name.length > 200) throw oauthError('invalid_client_metadata', 'client_name is longer than 200 characters');

  const now = ctx.clock.now();
  const id = newId('cli');
  const secret = method === 'none' ? undefined : `sec_${randomBase62(43)}`;
  const registered: ClientMetadata = { ...meta, token_endpoint_auth_method: method };
  await store.insertClient(ctx.db, {
    id,
    secret_hash: secret ? sha256Hex(secret) : null,
    auth_method: method,
    client_name: meta.client_name ?? null,
    redirect_uris: JSON.stringify(meta.redirect_uris),
    metadata: JSON.stringify(registered),
    created_at: iso(now),
    first_granted_at: null,
  });
  ctx.log.info({ clientId: id, clientName: meta.client_name, method }, 'oauth client registered');
  return {
    ...registered,
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
  };
}

export async function findClient(ctx: Ctx, id: string | undefined): Promise<Client | null> {
  if (!id || !isId(id)) return null;
  const row = await store.findClient(ctx.db, id);
  return row ? toClient(row) : null;
}

/**
 * Client authentication at the token and revocation endpoints: `none` (public, PKCE),
 * `client_secret_basic` or `client_secret_post`. Every failure is invalid_client (HTTP 401).
 */
export async function authenticateClient(ctx: Ctx, creds: { clientId?: string; clientSecret?: string }): Promise<Client> {
  if (!creds.clientId) throw oauthError('invalid_client', 'client_id is missing (send it in the body, or as HTTP Basic credentials)');
  const row = isId(creds.clientId) ? await store.findClient(ctx.db, creds.clientId) : undefined;
  if (!row) throw oauthError('invalid_client', 'Unknown client: register again');
  if (row.secret_hash) {
    if (!creds.clientSecret) throw oauthError('invalid_client', 'This client must authenticate with its client_secret');
    if (!safeEqual(sha256Hex(creds.clientSecret), row.secret_hash)) throw oauthError('invalid_client', 'Client authentication failed');
  }
  return toClient(row);
}

/** Remove clients that never received a grant within oauth.unusedClientExpiry. */
export async function purgeUnusedClients(ctx: Ctx): Promise<number> {
  const cutoff = iso(new Date(ctx.clock.now().getTime() - ctx.config.oauth.unusedClientExpiry));
  return store.deleteUngrantedClients(ctx.db, cutoff);
}

export const markClientGranted = (ctx: Ctx, id: string) => store.markClientGranted(ctx.db, id, nowIso(ctx.clock));
