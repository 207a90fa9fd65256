/**
 * OAuth wire errors (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 7009): a static code, an
 * HTTP status and a description written for a person, rendered as `{ error, error_description }`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error';

const STATUS: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401, server_error: 500 };

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = STATUS[code] ?? 400;
  }

  toResponseObject(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

export const isOAuthError = (err: unknown): err is OAuthError => err instanceof OAuthError;
