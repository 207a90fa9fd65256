import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { App } from '../../app.js';
import { redactUrl } from '../../lib/log.js';

/** Gives every request an id (X-Request-Id) and logs one line when it ends. Keys are redacted. */
export function requestLog(app: App): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      app.log.info({ requestId, method: ctx.method, url: redactUrl(ctx.originalUrl), status: ctx.status, ms: Math.round(ms * 10) / 10, address: ctx.ip }, 'request');
    }
  };
}
