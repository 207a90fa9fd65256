import cors from '@koa/cors';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { App } from '../app.js';
import { parseBody } from './middleware/body.js';
import { authenticateClient } from '../oauth/clients.js';
import { registerClient } from '../oauth/registration.js';
import { oauthError, oauthErrorResponse } from '../oauth/errors.js';
import { OAUTH_PATHS, authorizationServerMetadata, issuerOf, protectedResourceMetadata, resourceOf } from '../oauth/metadata.js';
import { exchangeCode, refreshTokens, revokeToken } from '../oauth/tokens.js';
import { logFailure } from '../lib/failure-log.js';

/**
 * The OAuth 2.1 authorization server for agents, as plain Koa routes over our own small
 * service (src/oauth/) and the MCP SDK's schemas. Discovery documents (RFC 9728, RFC 8414),
 * dynamic registration (RFC 7591), token (code + PKCE, refresh rotation) and revocation
 * (RFC 7009). The browser part (/oauth/authorize: login + consent) is in pages/.
 * Errors here are RFC 6749 `{ error, error_description }`, never the API envelope.
 */
export function createOAuthRouter(app: App): Middleware {
  const router = new Router();
  // Browser-based MCP clients (the Inspector) call these cross-origin; no cookies are involved.
  const withCors = cors({ origin: '*', allowMethods: ['GET', 'POST', 'OPTIONS'], allowHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'], maxAge: 86_400 });
  const parse = parseBody({ enableTypes: ['form', 'json'], formLimit: '64kb', jsonLimit: '64kb' });

  const resourceDoc = (resource: string) => (ctx: Context) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = protectedResourceMetadata(app.config, resource);
  };
  // RFC 9728 3.3: each document names the identifier its URL was formed from.
  router.get('/.well-known/oauth-protected-resource', withCors, resourceDoc(issuerOf(app.config)));
  router.get('/.well-known/oauth-protected-resource/api/mcp', withCors, resourceDoc(resourceOf(app.config)));
  router.get('/.well-known/oauth-authorization-server', withCors, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = authorizationServerMetadata(app.config);
  });

  // Open registration (RFC 7591), bounded per registration (oauth/registration.ts) and throttled
  // per address (ctx.ip: the proxy-appended address, see server.ts) before the body is read.
  const throttle: Middleware = async (ctx, next) => {
    await app.limits.registration(ctx.ip);
    await next();
  };
  router.post(OAUTH_PATHS.register, withCors, oauthErrors(app), throttle, parse, async (ctx) => {
    const client = await registerClient(app, ctx.request.body);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = client;
  });

  router.post(OAUTH_PATHS.token, withCors, oauthErrors(app), parse, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const body = formBody(ctx);
    const client = await authenticateClient(app, clientCredentials(ctx, body));
    switch (body.grant_type) {
      case 'authorization_code':
        ctx.body = await exchangeCode(app, client, { code: body.code, codeVerifier: body.code_verifier, redirectUri: body.redirect_uri, resource: body.resource });
        return;
      case 'refresh_token':
        ctx.body = await refreshTokens(app, client, { refreshToken: body.refresh_token, scope: body.scope, resource: body.resource });
        return;
      case undefined:
        throw oauthError('invalid_request', 'grant_type is required');
      default:
        throw oauthError('unsupported_grant_type', `grant_type ${body.grant_type} is not supported: use authorization_code or refresh_token`);
    }
  });

  router.post(OAUTH_PATHS.revoke, withCors, oauthErrors(app), parse, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = formBody(ctx);
    const client = await authenticateClient(app, clientCredentials(ctx, body));
    await revokeToken(app, client, body.token);
    ctx.status = 200;
    ctx.body = {};
  });

  for (const path of [OAUTH_PATHS.register, OAUTH_PATHS.token, OAUTH_PATHS.revoke]) router.options(path, withCors);
  return router.routes() as unknown as Middleware;
}

/** Every error on these endpoints as RFC 6749 `{ error, error_description }` (oauth/errors.ts). */
function oauthErrors(app: App): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { error, status, body } = oauthErrorResponse(err);
      logFailure(app, err, error, ctx.state.requestId, 'oauth request failed');
      ctx.status = status;
      ctx.set('Cache-Control', 'no-store');
      if (body.error === 'invalid_client' && ctx.get('Authorization').startsWith('Basic ')) ctx.set('WWW-Authenticate', 'Basic realm="svc"');
      const retry = error.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
      ctx.body = body;
    }
  };
}

/** The form fields as strings (a field sent twice is refused, RFC 6749 section 3.1). */
function formBody(ctx: Context): Record<string, string | undefined> {
  const raw = (ctx.request.body ?? {}) as Record<string, unknown>;
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (Array.isArray(v)) throw oauthError('invalid_request', `${k} was sent more than once`);
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

function clientCredentials(ctx: Context, body: Record<string, string | undefined>): { clientId?: string; clientSecret?: string } {
  const header = ctx.get('Authorization');
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw oauthError('invalid_client', 'Malformed HTTP Basic credentials');
    // RFC 6749 2.3.1: both parts are form-urlencoded before base64.
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        throw oauthError('invalid_client', 'Malformed HTTP Basic credentials');
      }
    };
    const clientId = dec(decoded.slice(0, i));
    if (body.client_id && body.client_id !== clientId) throw oauthError('invalid_request', 'client_id in the body differs from the Basic credentials');
    return { clientId, clientSecret: dec(decoded.slice(i + 1)) };
  }
  return { clientId: body.client_id, clientSecret: body.client_secret };
}
