import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { type OAuthErrorCode, oauthError } from './errors.js';
import { type Scope, SCOPES, isScope } from '../auth/scopes.js';
import { iso, nowIso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { isId } from '../lib/ids.js';
import { withTransaction } from '../db/tx.js';
import { findMembership } from '../workspaces/members.js';
import { type Client, findClient, markClientGranted, matchRedirectUri } from './clients.js';
import { isOurResource, issuerOf, resourceOf } from './metadata.js';
import { isValidChallenge } from './pkce.js';
import * as store from './store.js';

/**
 * The authorization endpoint's rules (OAuth 2.1 + RFC 7636, 8707, 9207). Until client_id and
 * redirect_uri are known good, errors are for the person (the page edge shows them, HTTP 400):
 * redirecting to an unverified URI would make us an open redirector. After that they carry the
 * verified redirect URI and go back to the client (errorRedirect).
 */
const pageError = (message: string): AppError => oauthError('invalid_request', message);

const clientError = (code: OAuthErrorCode, description: string, redirectUri: string, state: string | undefined): AppError =>
  oauthError(code, description, { details: { redirectUri, state } });

/** Where an authorization error goes: the client's verified redirect URI (with error, state, iss), or null for the error page. */
export function errorRedirect(ctx: Ctx, err: AppError): string | null {
  const { redirectUri, state } = err.details ?? {};
  if (typeof redirectUri !== 'string') return null;
  return redirectWith(ctx, redirectUri, { error: err.code, error_description: err.message }, typeof state === 'string' ? state : undefined);
}

export interface AuthorizationRequest {
  client: Client;
  /** Where the answer goes. */
  redirectUri: string;
  /** Whether the request named redirect_uri (then the token request must repeat it). */
  redirectUriSent: boolean;
  state?: string;
  codeChallenge: string;
  requestedScopes: Scope[];
  resource?: string;
}

/** The client's redirect URI with our answer: the params, the state and `iss` (RFC 9207). */
export function redirectWith(ctx: Ctx, redirectUri: string, params: Record<string, string>, state?: string): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuerOf(ctx.config));
  return url.toString();
}

export async function parseAuthorizationRequest(ctx: Ctx, query: Record<string, string | string[] | undefined>): Promise<AuthorizationRequest> {
  // RFC 6749 3.1: parameters must not be repeated. Before the redirect URI is verified that is a
  // page error; after, an invalid_request sent back (a repeated state is not echoed).
  const repeated = Object.keys(query).filter((k) => Array.isArray(query[k]));
  if (repeated.includes('client_id') || repeated.includes('redirect_uri')) {
    throw pageError(`This sign-in link is malformed: ${repeated.includes('client_id') ? 'client_id' : 'redirect_uri'} appears more than once.`);
  }
  const q = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string'));
  if (!q.client_id) throw pageError('This sign-in link is incomplete: it names no application (client_id is missing).');
  const client = await findClient(ctx, q.client_id);
  if (!client) throw pageError('This application is not registered here (any more). Start connecting again from the app.');
  const redirectUri = matchRedirectUri(client, q.redirect_uri);
  if (!redirectUri) {
    throw pageError(q.redirect_uri === undefined ? 'This sign-in link names no redirect_uri.' : 'The redirect_uri of this sign-in link is not registered for this application.');
  }
  const fail = (error: OAuthErrorCode, description: string): never => {
    throw clientError(error, description, redirectUri, q.state);
  };
  if (repeated.length) fail('invalid_request', `${repeated[0]} was sent more than once`);
  if (q.response_type !== 'code') fail('unsupported_response_type', 'response_type must be code');
  if (!q.code_challenge) fail('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (q.code_challenge_method !== 'S256') fail('invalid_request', 'code_challenge_method must be S256');
  if (!isValidChallenge(q.code_challenge!)) fail('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
  if (q.resource !== undefined && !isOurResource(ctx.config, q.resource)) fail('invalid_target', `resource must be ${resourceOf(ctx.config)}`);
  // Unknown scopes (e.g. offline_access, which is always granted in effect) are ignored.
  const requested = (q.scope ?? '').split(/\s+/).filter(isScope);
  return {
    client,
    redirectUri,
    redirectUriSent: q.redirect_uri !== undefined,
    state: q.state,
    codeChallenge: q.code_challenge!,
    requestedScopes: requested.length ? [...new Set(requested)] : [...SCOPES],
    resource: q.resource,
  };
}

const REQUEST_TTL_MS = 30 * 60_000;
/**
 * Pending requests one browser session keeps; a newer one makes the oldest expire at once. Every
 * GET of the consent page stores one (a `state` of up to ~16 KB in it), so without a bound one
 * signed-in person, whatever their role, could hold gigabytes for REQUEST_TTL_MS (measured: 223
 * pages a second, 3.4 MB a second).
 */
export const PENDING_PER_SESSION = 20;

/** Keep a validated request server-side while the person decides; the form carries only its id. */
export async function savePendingRequest(ctx: Ctx, sessionHash: string, req: AuthorizationRequest): Promise<string> {
  const id = `svc_consent_${randomBase62(32)}`; // prefixed like every secret svc issues, so logs redact it by its shape
  const { client, ...params } = req;
  await withTransaction(ctx.db, async (trx) => {
    // Room is made before the insert, so the new request is never the one a tie of times drops.
    await store.deleteRequestsBeyond(trx, sessionHash, PENDING_PER_SESSION - 1);
    await store.insertRequest(trx, {
      id_hash: sha256Hex(id),
      session_hash: sessionHash,
      client_id: client.id,
      params: JSON.stringify(params),
      expires_at: iso(new Date(ctx.clock.now().getTime() + REQUEST_TTL_MS)),
    });
  });
  return id;
}

export async function loadPendingRequest(ctx: Ctx, sessionHash: string, id: unknown): Promise<AuthorizationRequest & { id: string }> {
  const gone = pageError('This approval request has expired or was already answered. Start connecting again from the app.');
  if (typeof id !== 'string' || id.length > 100) throw gone;
  const row = await store.findRequest(ctx.db, sha256Hex(id));
  if (!row || row.session_hash !== sessionHash || row.expires_at <= nowIso(ctx.clock)) throw gone;
  const client = await findClient(ctx, row.client_id);
  if (!client) throw gone;
  return { ...(JSON.parse(row.params) as Omit<AuthorizationRequest, 'client'>), client, id };
}

export interface Decision {
  approve: boolean;
  workspaceId?: string;
  scopes: string[];
}

/** A checked decision: deny, or approve one of the person's workspaces with known scopes. */
export type Choice = { approve: false } | { approve: true; workspaceId: string; scopes: Scope[] };

/** The person's answer on the consent screen, checked; a wrong one is shown to them again (AppError). */
export async function checkDecision(ctx: Ctx, userId: string, decision: Decision): Promise<Choice> {
  if (!decision.approve) return { approve: false };
  const scopes = [...new Set(decision.scopes.filter(isScope))];
  if (scopes.length === 0 || scopes.length !== new Set(decision.scopes).size) throw new AppError('invalid_input', 400, 'Tick at least one permission to approve.');
  if (!decision.workspaceId || !isId(decision.workspaceId) || !(await findMembership(ctx, decision.workspaceId, userId))) {
    throw new AppError('forbidden', 403, 'Pick one of your workspaces.');
  }
  return { approve: true, workspaceId: decision.workspaceId, scopes };
}

/**
 * Answer a pending request once. Approve: a single-use code bound to the user, the workspace,
 * the ticked scopes, the redirect URI and the PKCE challenge. Returns where to send the browser.
 */
export async function decide(ctx: Ctx, userId: string, req: AuthorizationRequest & { id: string }, choice: Choice): Promise<string> {
  if (!(await store.consumeRequest(ctx.db, sha256Hex(req.id)))) throw pageError('This approval request was already answered.');
  if (!choice.approve) return redirectWith(ctx, req.redirectUri, { error: 'access_denied', error_description: 'The user denied the request' }, req.state);

  const code = `svc_code_${randomBase62(43)}`; // prefixed like every secret svc issues, so logs can redact it
  await store.insertCode(ctx.db, {
    code_hash: sha256Hex(code),
    client_id: req.client.id,
    user_id: userId,
    workspace_id: choice.workspaceId,
    scopes: JSON.stringify(choice.scopes),
    redirect_uri: req.redirectUriSent ? req.redirectUri : null,
    code_challenge: req.codeChallenge,
    resource: req.resource ?? null,
    expires_at: iso(new Date(ctx.clock.now().getTime() + ctx.config.oauth.authorizationCodeTtl)),
    used_at: null,
    connection_id: null,
  });
  await markClientGranted(ctx, req.client.id);
  ctx.log.info({ clientId: req.client.id, userId, workspaceId: choice.workspaceId, scopes: choice.scopes }, 'oauth consent approved');
  return redirectWith(ctx, req.redirectUri, { code }, req.state);
}
