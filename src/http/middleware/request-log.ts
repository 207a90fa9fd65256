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

/**
 * The most of a URL a request line holds. Node takes request lines up to its header limit
 * (16 KB), and every request is logged, refused or not: without a bound, a client without a key
 * wrote 15 KB of log per request (43 MB for 3,000 requests, answered 429 at 871 a second).
 */
export const LOGGED_URL_MAX = 2048;

/** The URL as logged: keys redacted first (so a cut never leaves part of one), then cut to LOGGED_URL_MAX. */
export function loggedUrl(url: string): string {
  const redacted = redactUrl(url);
  return redacted.length <= LOGGED_URL_MAX ? redacted : `${redacted.slice(0, LOGGED_URL_MAX)}...(${redacted.length - LOGGED_URL_MAX} more characters)`;
}

/** The one line logged per request (keys redacted from the URL); nothing is computed when info is off. */
export function logRequest(app: App, line: RequestLine): void {
  if (!app.log.isLevelEnabled('info')) return;
  const ms = performance.now() - line.started;
  app.log.info({ requestId: line.requestId, method: line.method, url: loggedUrl(line.url), status: line.status, ms: Math.round(ms * 10) / 10, address: line.address() }, 'request');
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
