import type { Ctx } from '../context.js';
import { hasBidiControls } from '../lib/bidi.js';
import { withTransaction } from '../db/tx.js';
import { iso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { AUTH_METHODS, type AuthMethod, redirectUriProblem } from './clients.js';
import { oauthError } from './errors.js';
import { type ClientMetadata, parseClientMetadata } from './metadata.js';
import * as store from './store.js';

/**
 * Limits of open registration: anyone may register, so what one registration may
 * store is bounded. Real clients register one to three short callback URIs.
 */
export const REGISTRATION_LIMITS = { redirectUris: 10, redirectUriLength: 512, clientNameLength: 200, metadataBytes: 8192 };

export interface RegistrationResponse extends ClientMetadata {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
}

// C0 and C1 control characters: a client name is shown to people (and PostgreSQL refuses NUL).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * RFC 7591 registration. Optional metadata sent as `null` counts as absent (some clients send
 * nulls); unknown fields are dropped; the response echoes what was registered, without nulls.
 */
export async function registerClient(ctx: Ctx, body: unknown): Promise<RegistrationResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw oauthError('invalid_client_metadata', 'The body must be a JSON object of client metadata');
  const parsed = parseClientMetadata(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)));
  if (!parsed.ok) {
    const code = parsed.field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw oauthError(code, `${parsed.field || 'metadata'}: ${parsed.message}`);
  }
  const meta = Object.fromEntries(Object.entries(parsed.value).filter(([, v]) => v !== undefined)) as ClientMetadata;
  const method = checkMetadata(meta);

  const now = ctx.clock.now();
  const id = newId('cli');
  const secret = method === 'none' ? undefined : `svc_secret_${randomBase62(43)}`; // prefixed like every secret svc issues (lib/redact.ts)
  const registered: ClientMetadata = { ...meta, token_endpoint_auth_method: method };
  // The redirect URIs and the name have their own columns: the rest of the metadata is kept
  // beside them without a second copy (with one, 2,000 registrations took 164 MB).
  const { redirect_uris: redirectUris, client_name: name, ...rest } = registered;
  // Through the transaction (SQLite's writer): written on the pool, it met the writer at SQLite's lock and some answered 503 busy.
  await withTransaction(ctx.db, (trx) => store.insertClient(trx, {
    id,
    secret_hash: secret ? sha256Hex(secret) : null,
    auth_method: method,
    client_name: name ?? null,
    redirect_uris: JSON.stringify(redirectUris),
    metadata: JSON.stringify(rest),
    created_at: iso(now),
    first_granted_at: null,
  }));
  ctx.log.info({ clientId: id, clientName: name, method }, 'oauth client registered');
  return {
    ...registered,
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
  };
}

/** The rules beyond the SDK schema's shapes; returns the token endpoint auth method. */
function checkMetadata(meta: ClientMetadata): AuthMethod {
  const limits = REGISTRATION_LIMITS;
  if (meta.redirect_uris.length === 0) throw oauthError('invalid_redirect_uri', 'redirect_uris needs at least one URI');
  if (meta.redirect_uris.length > limits.redirectUris) throw oauthError('invalid_redirect_uri', `redirect_uris takes at most ${limits.redirectUris} URIs`);
  for (const uri of meta.redirect_uris) {
    const problem = uri.length > limits.redirectUriLength ? `A redirect URI is longer than ${limits.redirectUriLength} characters` : redirectUriProblem(uri);
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
  if (meta.client_name !== undefined) {
    if (meta.client_name.length > limits.clientNameLength) throw oauthError('invalid_client_metadata', `client_name is longer than ${limits.clientNameLength} characters`);
    if (CONTROL.test(meta.client_name)) throw oauthError('invalid_client_metadata', 'client_name may not contain control characters');
    if (hasBidiControls(meta.client_name)) throw oauthError('invalid_client_metadata', 'client_name may not contain bidirectional controls (U+202E and the like): they reorder how it reads');
  }
  const size = Buffer.byteLength(JSON.stringify(meta));
  if (size > limits.metadataBytes) throw oauthError('invalid_client_metadata', `The client metadata is ${size} bytes of JSON; at most ${limits.metadataBytes} are accepted`);
  return method;
}
