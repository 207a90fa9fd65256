import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Middleware } from 'koa';
import type { App } from '../app.js';
import { listenAddress } from '../config/schema.js';
import { bearerToken } from '../lib/bearer.js';
import { safeEqual } from '../lib/crypto.js';

const PATH = '/metrics';

/**
 * GET /metrics on the public port: only when metrics.token is set, and only with that token as
 * `Authorization: Bearer` (401 otherwise). Without a token the path is not served here at all
 * (404): Prometheus then scrapes the separate metrics.listen address.
 */
export function createMetricsRoute(app: App): Middleware {
  const token = app.config.metrics.token;
  if (token) app.metrics.includeProcessMetrics();
  return async (ctx, next) => {
    if (!token || ctx.path !== PATH) return next();
    ctx.state.route = PATH;
    ctx.set('Cache-Control', 'no-store');
    const answer = await scrape(app, ctx.method, ctx.get('Authorization'));
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
    ctx.body = answer.body;
  };
}

/**
 * The separate listener of metrics.listen: plain node:http answering GET /metrics only (with
 * metrics.token, the same bearer check). Resolves with its address, or null when not configured.
 */
export async function startMetricsListener(app: App): Promise<{ address: AddressInfo; close(): Promise<void> } | null> {
  const where = listenAddress(app.config.metrics.listen);
  if (!where) return null;
  app.metrics.includeProcessMetrics();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const respond = (a: Answer) => {
      res.writeHead(a.status, { 'Cache-Control': 'no-store', ...a.headers });
      res.end(req.method === 'HEAD' ? undefined : a.body);
    };
    if (path !== PATH) return respond(jsonError(404, 'not_found', `Only GET ${PATH} is served here`));
    scrape(app, req.method ?? 'GET', req.headers.authorization ?? '').then(respond, (err: unknown) => {
      app.log.error({ err }, 'metrics scrape failed');
      respond(jsonError(500, 'internal_error', 'Internal error'));
    });
  });
  server.keepAliveTimeout = 65_000; // Prometheus keeps its connection between scrapes
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function scrape(app: App, method: string, authorization: string): Promise<Answer> {
  if (method !== 'GET' && method !== 'HEAD') return { ...jsonError(405, 'method_not_allowed', `Use GET ${PATH}`), headers: { 'Content-Type': 'application/json; charset=utf-8', Allow: 'GET, HEAD' } };
  const token = app.config.metrics.token;
  if (token && !safeEqual(bearerToken(authorization) ?? '', token)) {
    const refused = jsonError(401, 'unauthorized', 'Send the metrics token (metrics.token) as Authorization: Bearer <token>');
    return { ...refused, headers: { ...refused.headers, 'WWW-Authenticate': 'Bearer realm="metrics"' } };
  }
  return { status: 200, headers: { 'Content-Type': app.metrics.contentType }, body: await app.metrics.render() };
}

function jsonError(status: number, code: string, message: string): Answer {
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify({ error: { code, message } }) };
}
