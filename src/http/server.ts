import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { App } from '../app.js';
import { createMcpEndpoint } from '../mcp/endpoint.js';
import { createContentApi } from './content-api.js';
import { contentDirect } from './content-direct.js';
import { type Phase, answerWhileStarting, createHealthRouter } from './health.js';
import { InFlight } from './in-flight.js';
import { apiErrors } from './middleware/errors.js';
import { requestMetrics } from './middleware/metrics.js';
import { createMediaRouter } from './media.js';
import { createMetricsRoute, startMetricsListener } from './metrics.js';
import { requestLog } from './middleware/request-log.js';
import { createOAuthRouter } from './oauth.js';
import { createPagesRouter } from './pages/index.js';
import { rootRoute } from './root.js';
import { createWorkspaceApi } from './workspace-api.js';

export interface HttpServer {
  koa: Koa;
  server: http.Server;
  /** Address of the separate metrics listener (metrics.listen), null when none; rejects when it cannot bind. */
  metricsAddress: Promise<AddressInfo | null>;
  /** Listen (a no-op when the server passed in already listens). */
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Drain: /healthz turns 503 `draining`, the port closes, responses on connections still open
   * carry `Connection: close`, in-flight requests finish. When `deadline` aborts (default: after
   * server.shutdownTimeout), every connection still open is cut. Resolves once all are closed,
   * with the number of requests that were cut unanswered.
   */
  close(deadline?: AbortSignal): Promise<{ cut: number }>;
}

/**
 * Bind before the app exists, so that with port 0 the real port can go into the base URL
 * (OAuth metadata and article URLs must name the address clients actually reach). Until
 * createHttpServer takes the server over, every request is answered 503 `starting`.
 */
export function bindServer(port: number, host: string): Promise<http.Server> {
  const server = http.createServer(answerWhileStarting);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The Koa app with one router per surface. Each surface renders its own error format. */
export function createHttpServer(app: App, bound?: http.Server): HttpServer {
  let phase: Phase = 'ready';
  // Koa's ctx.ip is the leftmost X-Forwarded-For entry, which the client writes itself, unless
  // maxIpsCount keeps only the entries our proxies appended (a client cannot pick its address). Every use of the client
  // address (sign-in and registration throttles, the request log) reads ctx.ip.
  const { trustProxy, proxyHops } = app.config.server;
  const koa = new Koa({ proxy: trustProxy, maxIpsCount: trustProxy ? proxyHops : 0 });
  koa.silent = true; // errors are logged by our middleware, not printed by Koa
  koa.on('error', (err) => app.log.error({ err }, 'unhandled koa error'));

  koa.use(requestLog(app));
  koa.use(requestMetrics(app));
  // Fallback envelope; OAuth and MCP render their own wire formats inside their routers.
  koa.use(apiErrors(app));
  koa.use(createHealthRouter(app, () => phase).routes());
  koa.use(createMetricsRoute(app));
  koa.use(createMediaRouter(app).routes());
  const content = createContentApi(app);
  koa.use(content.middleware);
  koa.use(createMcpEndpoint(app));
  koa.use(createOAuthRouter(app));
  koa.use(createWorkspaceApi(app));
  koa.use(createPagesRouter(app));
  koa.use(rootRoute(app));
  koa.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found', message: `No route for ${ctx.method} ${ctx.path}` } };
  });

  const server = bound ?? http.createServer();
  const handle = koa.callback();
  const direct = contentDirect(app, content, koa);
  const inFlight = new InFlight();
  server.removeListener('request', answerWhileStarting);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    // While draining, clients and proxies reconnect elsewhere instead of reusing this connection.
    if (phase === 'draining') res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // A response that went out keep-alive (its head was sent before the drain) leaves an idle
      // connection behind: close it rather than wait for the deadline.
      if (phase === 'draining') setImmediate(() => server.closeIdleConnections());
    });
    if (!direct(req, res)) void handle(req, res);
  });
  server.keepAliveTimeout = 65_000; // longer than common proxies' idle timeout
  const metricsListener = startMetricsListener(app);
  metricsListener.catch(() => {}); // the owner awaits metricsAddress; close() must not throw for it
  return {
    koa,
    server,
    metricsAddress: metricsListener.then((l) => l?.address ?? null),
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        if (server.listening) return resolve(server.address() as AddressInfo);
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    close: async (deadline = AbortSignal.timeout(app.config.server.shutdownTimeout)) => {
      const drained = drain(deadline); // first: /healthz turns draining at once
      await (await metricsListener.catch(() => null))?.close();
      return drained;
    },
  };

  function drain(deadline: AbortSignal): Promise<{ cut: number }> {
    return new Promise((resolve) => {
      phase = 'draining';
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (!server.listening) return resolve({ cut: 0 });
      let cut = 0;
      const cutAll = () => {
        cut = inFlight.size;
        server.closeAllConnections();
      };
      server.close(() => {
        deadline.removeEventListener('abort', cutAll);
        resolve({ cut });
      });
      server.closeIdleConnections();
      if (deadline.aborted) cutAll();
      else deadline.addEventListener('abort', cutAll, { once: true });
    });
  }
}
