import type { Ctx } from '../context.js';
import { withoutBidiControls } from '../lib/bidi.js';
import { iso, nowIso } from '../lib/clock.js';
import { safeEqual, sha256Hex } from '../lib/crypto.js';
import { isId } from '../lib/ids.js';
import { oauthError } from './errors.js';
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
  // Neutralised for display: a name stored before registration refused bidi controls.
  name: r.client_name === null ? null : withoutBidiControls(r.client_name),
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
