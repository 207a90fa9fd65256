/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive, RFC 9110 §11.1), or null when the header is absent, uses another scheme
 * (Basic, ...) or names no token. The one parser of the content API (blog keys) and MCP (API
 * keys, OAuth access tokens): what follows the scheme is the token, so a malformed one is still
 * "presented" and refused as an invalid token rather than ignored.
 */
export function bearerToken(authorization: string | undefined | null): string | null {
  const match = /^Bearer[ \t]+(.+)$/i.exec(authorization ?? '');
  const token = match?.[1].trim();
  return token ? token : null;
}
