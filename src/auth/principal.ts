import type { Scope } from './scopes.js';

/**
 * Who is calling /api/mcp: an API key or an OAuth connection, acting for one user in one
 * workspace with a set of scopes. Membership, role and subscription are re-checked on every
 * call by the MCP endpoint, whatever the kind.
 */
export interface Principal {
  kind: 'api_key' | 'oauth';
  /** API key id or OAuth connection id: the unit of rate limiting and revocation. */
  id: string;
  userId: string;
  workspaceId: string;
  scopes: Scope[];
  /** For display: key name or OAuth client name. */
  label: string;
}
