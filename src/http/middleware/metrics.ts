import type { Context, Middleware } from 'koa';
import type { App } from '../../app.js';
import type { Metrics } from '../../lib/metrics.js';

/** Methods Node's parser accepts are a fixed set, but keep the label to the ones we route. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Count and time one answered request (`started`: performance.now() at its arrival); 429s are counted apart. */
export function countRequest(metrics: Metrics, method: string, route: string, status: number, started: number): void {
  const label = METHODS.has(method) ? method : 'other';
  metrics.countRequest(label, route, status);
  metrics.httpDuration.observe(label, route, (performance.now() - started) / 1000);
  if (status === 429) metrics.rateLimited.inc({ route });
}

/**
 * Counts every request by method, route pattern and status, times it, and counts 429s (whichever
 * limiter refused: content API per key, MCP calls, sign-in attempts). Outermost after the request
 * log, so it sees the status every surface's own error renderer set.
 */
export function requestMetrics(app: App): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      countRequest(app.metrics, ctx.method, routeLabel(ctx), ctx.status, started);
    }
  };
}

/**
 * The route's pattern (`/api/v1/content/articles/:slug`), never the URL: a slug or a key in a
 * label would leak it and make one series per value. Hand-written surfaces set ctx.state.route;
 * @koa/router leaves its pattern in ctx._matchedRoute; anything else is `unmatched`.
 */
function routeLabel(ctx: Context): string {
  const state = ctx.state.route;
  if (typeof state === 'string') return state;
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' && matched.startsWith('/') ? matched : 'unmatched';
}
