import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Middleware } from 'koa';
import type { App } from '../app.js';
import { isApiKeyToken, resolveApiKey } from '../auth/api-keys.js';
import { checkCallAccess } from '../auth/mcp-access.js';
import type { Principal } from '../auth/principal.js';
import { AppError, toAppError } from '../errors.js';
import { bearerToken } from '../lib/bearer.js';
import { resolveOAuthAccessToken } from '../oauth/resolve.js';
import { guardRequests } from './guard.js';
import { MCP_PATH, type PostBody, originPolicy, readJsonBody, rpcError, setCors, setPreflight } from './http.js';
import { checkMessages, replyIds } from './messages.js';
import { REFUSED } from './rpc-error.js';
import { createMcpServer } from './server.js';
import { logFailure } from '../lib/failure-log.js';

const BODY_LIMIT = 5 * 1024 * 1024; // an article body may be 2 MB of markdown, JSON-escaped
/** Deepest nesting of arrays and objects a body may have (an MCP message needs fewer than 10). */
export const MAX_BODY_DEPTH = 32;

/** JSON-RPC codes of refusals of the whole POST (everything else is -32000, with data.code). */
const RPC_CODES: Record<string, number> = { parse_error: -32700, invalid_request: -32600, nesting_too_deep: -32600, batch_not_supported: -32600, internal_error: -32603 };

/**
 * POST /api/mcp: the agent endpoint (stateless Streamable HTTP). In order: Origin (403), bearer
 * API key or OAuth token (401 + WWW-Authenticate, RFC 6750 / RFC 9728), then one call of the
 * budget (429), all before the body is read; the body (415, 413, nesting deeper than
 * MAX_BODY_DEPTH, parse error), its JSON-RPC shape and batch rules (400), the rest of the budget,
 * one call per message in the body (429), membership and subscription (403),
 * then a fresh McpServer and transport for this request. Every refusal is one JSON-RPC error:
 * with the request's id once the body was read and holds a single request, else id null.
 * GET and DELETE answer 405 (no server-initiated streams, no sessions) and cost nothing.
 */
export function createMcpEndpoint(app: App): Middleware {
  const originAllowed = originPolicy(app.config);
  const resourceMetadata = `${app.config.server.baseUrl}/.well-known/oauth-protected-resource${MCP_PATH}`;

  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH && ctx.path !== `${MCP_PATH}/`) return next();
    ctx.state.route = MCP_PATH;
    const origin = ctx.get('Origin');
    let body: PostBody | undefined;
    let principal: Principal | undefined;
    try {
      // What the headers decide comes before the body is read: nobody unauthenticated gets a
      // byte of it parsed (else a 5 MB batch without a token would be parsed, and answered
      // with one error per element).
      if (origin) {
        if (!originAllowed(origin)) throw new AppError('origin_not_allowed', 403, `Origin ${origin} is not allowed to call this server`);
        setCors(ctx, origin);
      }
      if (ctx.method === 'OPTIONS') {
        setPreflight(ctx);
        ctx.status = 204;
        return;
      }
      if (ctx.method !== 'POST') {
        ctx.set('Allow', 'POST, OPTIONS');
        throw new AppError('method_not_allowed', 405, 'Method not allowed: this server is stateless; send JSON-RPC messages with POST');
      }
      principal = await authenticate(app, ctx, resourceMetadata);
      // Every POST costs a call before a byte of its body is read: past the budget nothing is
      // read or parsed, and a body refused later (too large, too deep, not JSON-RPC) has counted.
      await app.limits.mcpCalls(principal.id, 1);
      body = await readJsonBody(ctx, BODY_LIMIT, MAX_BODY_DEPTH);
      if (body.problem) throw body.problem;
      const calls = checkMessages(body.value, ctx.get('MCP-Protocol-Version') || undefined);
      if (calls > 1) await app.limits.mcpCalls(principal.id, calls - 1);
      const access = await checkCallAccess(app, principal);
      await handle(app, ctx, { principal, ...access }, body.value);
    } catch (caught) {
      const err = toAppError(caught);
      // Refused before the body was read: it is not read at all, and the connection not reused.
      if (!body && ctx.method === 'POST') ctx.set('Connection', 'close');
      // A single request's refusal answers its id; a batch refused as a whole gets one error (id null).
      const to = replyIds(body?.value);
      // A dependency that is down (503 unavailable, exposed) is answered as itself, with Retry-After.
      logFailure(app, caught, err, ctx.state.requestId, 'MCP request failed', { principal: principal?.id });
      if (err.status >= 500 && !err.expose) {
        return rpcError(ctx, 500, 'Internal error', { rpcCode: RPC_CODES.internal_error, to });
      }
      const retry = err.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
      // A dependency's name and failure class travel in data, as in the API envelope.
      const details = err.details?.dependency ? err.details : undefined;
      return rpcError(ctx, err.status, err.message, { rpcCode: RPC_CODES[err.code] ?? REFUSED, to, code: err.code, details });
    }
  };
}

/**
 * The principal of the bearer token: API keys by their prefix, anything else is offered to the
 * OAuth token resolver. Otherwise a 401 whose challenge names the resource metadata (RFC 9728)
 * and, when a token was presented, `error="invalid_token"` (RFC 6750 §3.1: a request without
 * any token gets no error code, so a client simply starts authorization).
 */
async function authenticate(app: App, ctx: Context, resourceMetadata: string): Promise<Principal> {
  const token = bearerToken(ctx.get('Authorization'));
  const principal = token ? await (isApiKeyToken(token) ? resolveApiKey(app, token) : resolveOAuthAccessToken(app, token)) : null;
  if (principal) return principal;
  const error = token ? ', error="invalid_token", error_description="The access token is unknown, expired or revoked"' : '';
  ctx.set('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadata}"${error}`);
  if (token) throw new AppError('invalid_token', 401, 'Unauthorized: the API key or access token is unknown, expired or revoked');
  throw new AppError('unauthorized', 401, 'Unauthorized: send a valid API key or OAuth access token as Authorization: Bearer <token>');
}

/**
 * One fresh McpServer and transport for this POST (stateless). The SDK's web-standard transport
 * answers plain JSON (enableJsonResponse), which we write through Koa; it answers a batch of one
 * request with a bare object, which JSON-RPC 2.0 §6 wants in an array.
 */
async function handle(app: App, ctx: Context, env: Omit<Parameters<typeof createMcpServer>[0], 'app'>, body: unknown): Promise<void> {
  let outage: AppError | undefined;
  const server = createMcpServer({ app, ...env, onUnavailable: (e) => (outage ??= e) });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    guardRequests(server, transport);
    const headers = new Headers({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' });
    const version = ctx.get('MCP-Protocol-Version');
    if (version) headers.set('MCP-Protocol-Version', version);
    const response = await transport.handleRequest(new Request(`${app.config.server.baseUrl}${MCP_PATH}`, { method: 'POST', headers }), { parsedBody: body });
    const text = await response.text();
    // A single call a dependency could not serve is the same 503 as a refusal before it (with
    // Retry-After), not a 200 tool error an agent would read as final. A batch keeps its answers:
    // its other calls may have changed something.
    if (outage && !Array.isArray(body)) throw outage;
    ctx.status = response.status;
    if (!text) {
      ctx.body = ''; // 202: notifications and responses only
      ctx.remove('Content-Type');
      return;
    }
    ctx.type = 'application/json';
    ctx.body = response.ok && Array.isArray(body) && !text.startsWith('[') ? `[${text}]` : text;
  } finally {
    await server.close();
  }
}
