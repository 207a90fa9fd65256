import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { App } from '../../app.js';
import { parseBody } from '../middleware/body.js';
import { connectionsRoutes } from './connections.js';
import { consentRoutes } from './consent.js';
import { toAppError } from '../../errors.js';
import { logFailure } from '../../lib/failure-log.js';
import { errorPage, sendPage } from './layout.js';
import { loginRoutes } from './login.js';
import { loadSession, pageHeaders } from './session.js';

/**
 * Server-rendered pages: login, logout, the OAuth consent screen (/oauth/authorize) and the
 * connections page. Forms are urlencoded, CSRF-protected by a per-session token; failures are
 * HTML pages, never the JSON envelope.
 */
export function createPagesRouter(app: App): Middleware {
  const router = new Router();
  router.use(pageHeaders(), pageErrors(app), parseBody({ enableTypes: ['form'], formLimit: '32kb' }), loadSession(app));
  loginRoutes(app, router);
  consentRoutes(app, router);
  connectionsRoutes(app, router);
  return router.routes() as unknown as Middleware;
}

function pageErrors(app: App): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = toAppError(err);
      const client = e.status < 500;
      logFailure(app, err, e, ctx.state.requestId, 'page failed');
      const retry = e.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
      const detail = e.code === 'invalid_input' ? `${e.message}. Go back and try again.` : 'The form could not be read. Go back and try again.';
      // A dependency that cannot serve says so (its message is meant for people); a bug does not.
      const serverDetail = e.expose ? e.message : 'An internal error occurred. Please try again in a moment.';
      sendPage(ctx, errorPage(client ? 'Something is wrong with this request' : 'Something went wrong', client ? detail : serverDetail), e.status);
    }
  };
}
