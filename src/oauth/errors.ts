import { AppError, type AppErrorOptions, toAppError } from '../errors.js';

/**
 * OAuth errors are AppErrors whose code is the wire code of RFC 6749 section 5.2, RFC 7591
 * section 3.2.2 or RFC 8707 (one error type for every surface). Each edge maps them to its format: the
 * token, registration and revocation endpoints to `{ error, error_description }`, the
 * authorization endpoint to a redirect with error parameters (once the redirect URI is known
 * good) or to the error page.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'unsupported_token_type',
  'invalid_scope',
  'access_denied',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'server_error',
  'temporarily_unavailable',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

const STATUS: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401, server_error: 500 };

export const oauthError = (code: OAuthErrorCode, description: string, options?: AppErrorOptions): AppError =>
  new AppError(code, STATUS[code] ?? 400, description, options);

const isOAuthCode = (code: string): code is OAuthErrorCode => (OAUTH_ERROR_CODES as readonly string[]).includes(code);

/**
 * Any thrown error as an RFC 6749 error response: OAuth codes as they are; other client errors
 * (bad body, unsupported Content-Encoding, a throttle) keep their status as `invalid_request`;
 * a dependency that is down is 503 `temporarily_unavailable` (RFC 6749 4.1.2.1's code, the one
 * clients know to retry) with Retry-After; anything else is `server_error` with no detail.
 */
export function oauthErrorResponse(err: unknown): { error: AppError; status: number; body: { error: OAuthErrorCode; error_description: string } } {
  const e = toAppError(err);
  const code: OAuthErrorCode = isOAuthCode(e.code) ? e.code : e.status < 500 ? 'invalid_request' : e.status === 503 ? 'temporarily_unavailable' : 'server_error';
  return { error: e, status: e.status, body: { error: code, error_description: e.expose ? e.message : 'Internal error' } };
}
