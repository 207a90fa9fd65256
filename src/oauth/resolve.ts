import type { Ctx } from '../context.js';
import type { Principal } from '../auth/principal.js';

// PLACEHOLDER (issue 6): an OAuth access token -> the connection's principal, or null when the
// token is unknown, expired or revoked (the MCP endpoint then answers 401).
export async function resolveOAuthAccessToken(_ctx: Ctx, _token: string): Promise<Principal | null> {
  return null;
}
