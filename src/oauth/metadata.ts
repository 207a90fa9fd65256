import {
  OAuthClientMetadataSchema,
  type OAuthClientMetadata,
  type OAuthMetadata,
  OAuthMetadataSchema,
  type OAuthProtectedResourceMetadata,
  OAuthProtectedResourceMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Config } from '../config/schema.js';
import { SCOPES } from '../auth/scopes.js';

// The only importer of the MCP SDK's OAuth zod schemas: the documents we serve are parsed with
// the same schemas the SDK's client parses them with, so a shape drift fails our tests, not users.

/** The issuer and base of every URL: config.server.baseUrl without a trailing slash. */
export const issuerOf = (config: Config): string => config.server.baseUrl.replace(/\/+$/, '');

/** The protected resource (RFC 8707 / RFC 9728): the MCP endpoint. */
export const resourceOf = (config: Config): string => `${issuerOf(config)}/api/mcp`;

/**
 * Whether a `resource` parameter (RFC 8707) names us: the MCP endpoint, or the origin, which
 * the metadata at /.well-known/oauth-protected-resource names (RFC 9728 section 3.3: the
 * document at a URL formed from the origin describes the origin). Both reach /api/mcp only.
 */
export function isOurResource(config: Config, value: string): boolean {
  if (!URL.canParse(value)) return false;
  const href = new URL(value).href;
  return href === new URL(resourceOf(config)).href || href === new URL(issuerOf(config)).href;
}

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

/** Scopes a client may request: ours, plus offline_access accepted as a no-op. */
export const SUPPORTED_SCOPES = [...SCOPES, 'offline_access'];

/**
 * RFC 9728 document for a resource identifier: /.well-known/oauth-protected-resource/api/mcp
 * describes the MCP endpoint; /.well-known/oauth-protected-resource, formed from the origin,
 * describes the origin (a strict client such as oauth4webapi checks exactly that).
 */
export function protectedResourceMetadata(config: Config, resource: string = resourceOf(config)): OAuthProtectedResourceMetadata {
  return OAuthProtectedResourceMetadataSchema.parse({
    resource,
    authorization_servers: [issuerOf(config)],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'svc MCP server',
  });
}

/** RFC 8414 document; every interop point of decisions.md "Agent connection" is stated here. */
export function authorizationServerMetadata(config: Config): OAuthMetadata {
  const base = issuerOf(config);
  return OAuthMetadataSchema.parse({
    issuer: base,
    authorization_endpoint: base + OAUTH_PATHS.authorize,
    token_endpoint: base + OAUTH_PATHS.token,
    registration_endpoint: base + OAUTH_PATHS.register,
    revocation_endpoint: base + OAUTH_PATHS.revoke,
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
  });
}

export type ClientMetadata = OAuthClientMetadata;

/** RFC 7591 metadata: known fields validated, unknown ones dropped (the schema strips them). */
export function parseClientMetadata(body: unknown): { ok: true; value: ClientMetadata } | { ok: false; field: string; message: string } {
  const result = OAuthClientMetadataSchema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, field: issue?.path.map(String).join('.') ?? '', message: issue?.message ?? 'invalid client metadata' };
}
