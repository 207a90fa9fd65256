import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context, Middleware } from 'koa';
import type { App } from '../app.js';
import { isApiKeyToken, resolveApiKey } from '../auth/api-keys.js';
import { checkCallAccess } from '../auth/mcp-access.js';
import { CallRateLimiter } from '../auth/mcp-rate-limit.js';
import type { Principal } from '../auth/principal.js';
import { toAppError } from '../errors.js';
import { resolveOAuthAccessToken } from '../oauth/resolve.js';
import { MCP_PATH, acceptBoth, bearerToken, hasRequest, originPolicy, readJsonBody, requestId, rpcError, setCors, setPreflight } from './http.js';
import { createMcpServer } from './server.js';

const BODY_LIMIT = 5 * 1024 * 1024; // an article body may be 2 MB of markdown, JSON-escaped

/**
 * POST /api/mcp: the agent endpoint (stateless Streamable HTTP). In order: Origin (403),
 * bearer API key or OAuth token (401 + WWW-Authenticate, RFC 9728), body, call budget (429),
 * membership and subscription (403), then a fresh McpServer and transport for this request.
 * GET and DELETE answer 405 (no server-initiated streams, no sessions) and cost nothing.
 */
export function createMcpEndpoint(app: App): Middleware {
  const originAllowed = originPolicy(app.config);
  const limiter = new CallRateLimiter(app.config.mcp.rateLimitPerMinute);
  const resourceMetadata = `${app.config.server.baseUrl}/.well-known/oauth-protected-resource${MCP_PATH}`;

  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH && ctx.path !== `${MCP_PATH}/`) return next();
    const origin = ctx.get('Origin');
    if (origin) {
      if (!originAllowed(origin)) return rpcError(ctx, 403, `Origin ${origin} is not allowed to call this server`, { code: 'origin_not_allowed' });
      setCors(ctx, origin);
    }
    if (ctx.method === 'OPTIONS') {
      setPreflight(ctx);
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST, OPTIONS');
      return rpcError(ctx, 405, 'Method not allowed: this server is stateless; send JSON-RPC messages with POST', { code: 'method_not_allowed' });
    }

    const principal = await authenticate(app, ctx);
    if (!principal) {
      ctx.set('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadata}"`);
      return rpcError(ctx, 401, 'Unauthorized: send a valid API key or OAuth access token as Authorization: Bearer <token>', { code: 'invalid_token' });
    }

    let body: unknown;
    try {
      body = await readJsonBody(ctx, BODY_LIMIT);
      if (hasRequest(body)) limiter.take(principal.id, app.clock.now().getTime());
      const access = await checkCallAccess(app, principal);
      acceptBoth(ctx.req);
      await handle(app, ctx, { principal, ...access }, body);
    } catch (caught) {
      const err = toAppError(caught);
      if (err.status >= 500) {
        app.log.error({ err: caught, principal: principal.id }, 'MCP request failed');
        return rpcError(ctx, 500, 'Internal error', { rpcCode: -32603, id: requestId(body) });
      }
      const retry = err.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
      const rpcCode = err.code === 'parse_error' ? -32700 : -32000;
      return rpcError(ctx, err.status, err.message, { rpcCode, id: requestId(body), code: err.code });
    }
  };
}

/** API keys by their prefix; anything else is offered to the OAuth token resolver. */
async function authenticate(app: App, ctx: Context): Promise<Principal | null> {
  const token = bearerToken(ctx);
  if (!token) return null;
  return isApiKeyToken(token) ? resolveApiKey(app, token) : resolveOAuthAccessToken(app, token);
}

async function handle(app: App, ctx: Context, env: Omit<Parameters<typeof createMcpServer>[0], 'app'>, body: unknown): Promise<void> {
  const server = createMcpServer({ app, ...env });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  ctx.status = 200; // for the request log; the transport writes the real answer
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, body);
}
