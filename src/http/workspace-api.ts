import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { App } from '../app.js';
import { parseBody } from './middleware/body.js';
import { createApiKey } from '../auth/api-keys.js';
import { SESSION_COOKIE, findSession } from '../auth/sessions.js';
import { AppError, forbidden, unauthorized } from '../errors.js';

/**
 * /api/v1/workspaces/<id>/...: browser-session endpoints for workspace admins (decisions.md,
 * "API keys"). Authenticated by the `__session` cookie, so they are guarded against cross-site
 * requests: the body must be JSON (an HTML form cannot send that without a CORS preflight, which
 * we never grant) and a browser's Origin / Sec-Fetch-Site must say the request is same-origin.
 * Errors use the API envelope.
 */
export function createWorkspaceApi(app: App): Middleware {
  const router = new Router({ prefix: '/api/v1/workspaces' });
  const json = parseBody({
    enableTypes: ['json'],
    jsonLimit: '16kb',
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new AppError('payload_too_large', 413, 'The body is larger than 16 kB');
      throw new AppError('invalid_body', 400, 'The body is not valid JSON', { cause: err });
    },
  });

  router.post('/:id/api-keys', sameOrigin(app), requireJson, json, async (ctx) => {
    const userId = await sessionUser(app, ctx);
    const body = ctx.request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_input', 400, 'The body must be a JSON object { name, scopes }');
    const { name, scopes } = body as { name?: unknown; scopes?: unknown };
    const key = await createApiKey(app, { workspaceId: ctx.params.id, userId, name, scopes });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: key };
  });

  return router.routes() as unknown as Middleware;
}

async function sessionUser(app: App, ctx: Context): Promise<string> {
  const session = await findSession(app, ctx.cookies.get(SESSION_COOKIE));
  if (!session?.userId) throw unauthorized('unauthorized', 'Sign in first: this needs a valid __session cookie');
  return session.userId;
}

const requireJson: Middleware = async (ctx, next) => {
  if (!ctx.request.is('application/json')) throw new AppError('unsupported_media_type', 415, 'Send the body as JSON with Content-Type: application/json');
  await next();
};

/** Refuse requests a browser marks as coming from another site (CSRF defence in depth). */
function sameOrigin(app: App): Middleware {
  const ours = new URL(app.config.server.baseUrl).origin;
  return async (ctx, next) => {
    const site = ctx.get('Sec-Fetch-Site');
    if (site && site !== 'same-origin' && site !== 'none') throw forbidden('Cross-site requests are not allowed here', { details: { reason: 'cross_site' } });
    const origin = ctx.get('Origin');
    if (origin && origin !== ours && origin !== `${ctx.protocol}://${ctx.host}`) throw forbidden(`Origin ${origin} is not allowed here`, { details: { reason: 'cross_site' } });
    await next();
  };
}
