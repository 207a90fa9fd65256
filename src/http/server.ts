import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { App } from '../app.js';
import { createMcpEndpoint } from '../mcp/endpoint.js';
import { createContentApi } from './content-api.js';
import { createHealthRouter } from './health.js';
import { apiErrors } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { createOAuthRouter } from './oauth.js';
import { createPagesRouter } from './pages/index.js';
import { createWorkspaceApi } from './workspace-api.js';

export interface HttpServer {
  koa: Koa;
  server: http.Server;
  /** Listen (a no-op when the server passed in already listens). */
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stop accepting, let in-flight requests finish (up to the shutdown timeout), then close. */
  close(): Promise<void>;
}

/**
 * Bind before the app exists, so that with port 0 the real port can go into the base URL
 * (OAuth metadata and article URLs must name the address clients actually reach).
 */
export function bindServer(port: number, host: string): Promise<http.Server> {
  const server = http.createServer();
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
  // Koa's ctx.ip is the leftmost X-Forwarded-For entry, which the client writes itself, unless
  // maxIpsCount keeps only the entries our proxies appended (issue 11). Every use of the client
  // address (sign-in and registration throttles, the request log) reads ctx.ip.
  const { trustProxy, proxyHops } = app.config.server;
  const koa = new Koa({ proxy: trustProxy, maxIpsCount: trustProxy ? proxyHops : 0 });
  koa.silent = true; // errors are logged by our middleware, not printed by Koa
  koa.on('error', (err) => app.log.error({ err }, 'unhandled koa error'));

  koa.use(requestLog(app));
  // Fallback envelope; OAuth and MCP render their own wire formats inside their routers.
  koa.use(apiErrors(app));
  koa.use(createHealthRouter(app).routes());
  koa.use(createContentApi(app));
  koa.use(createMcpEndpoint(app));
  koa.use(createOAuthRouter(app));
  koa.use(createWorkspaceApi(app));
  koa.use(createPagesRouter(app));
  koa.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found', message: `No route for ${ctx.method} ${ctx.path}` } };
  });

  const server = bound ?? http.createServer();
  server.on('request', koa.callback());
  server.keepAliveTimeout = 65_000; // longer than common proxies' idle timeout
  return {
    koa,
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        if (server.listening) return resolve(server.address() as AddressInfo);
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        const timer = setTimeout(() => server.closeAllConnections(), app.config.server.shutdownTimeout);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
