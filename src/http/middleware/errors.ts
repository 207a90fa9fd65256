import type { Middleware } from 'koa';
import { toAppError } from '../../errors.js';
import type { App } from '../../app.js';
import { logFailure } from '../../lib/failure-log.js';

/**
 * The API error envelope `{ error: { code, message, ...details } }`. AppErrors keep their status;
 * Koa/http-errors with `expose` (bad JSON, body too large) keep theirs; anything else is a bug:
 * logged with its stack and answered as a 500 internal_error without details.
 */
export function apiErrors(app: App): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = toAppError(err);
      logFailure(app, err, e, ctx.state.requestId, 'request failed');
      ctx.status = e.status;
      ctx.body = { error: { code: e.code, message: e.expose ? e.message : 'Internal error', ...(e.expose ? e.details : {}) } };
      const retry = e.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
    }
  };
}
