import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { App } from '../../app.js';
import { redactUrl } from '../../lib/redact.js';

/** The request's id: the client's X-Request-Id when it is a plain token, else a new UUID. */
export function requestIdFor(incoming: string): string {
  return /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
}

export interface RequestLine {
  requestId: string;
  method: string;
  url: string;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
  /** The client's address (Koa's ctx.ip, proxy settings applied); only read when the line is written. */
  address: () => string;
}

/** The one line logged per request (keys redacted from the URL); nothing is computed when info is off. */
export function logRequest(app: App, line: RequestLine): void {
  if (!app.log.isLevelEnabled('info')) return;
  const ms = performance.now() - line.started;
  app.log.info({ requestId: line.requestId, method: line.method, url: redactUrl(line.url), status: line.status, ms: Math.round(ms * 10) / 10, address: line.address() }, 'request');
}

/** Gives every request an id (X-Request-Id) and logs one line when it ends. Keys are redacted. */
export function requestLog(app: App): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdFor(ctx.get('X-Request-Id'));
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      logRequest(app, { requestId, method: ctx.method, url: ctx.originalUrl, status: ctx.status, started, address: () => ctx.ip });
    }
  };
}
