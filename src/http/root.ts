import type { Middleware } from 'koa';
import type { App } from '../app.js';
import { VERSION } from '../version.js';

/**
 * GET / says what answers here and where the docs are, instead of a bare 404: a
 * person who opens the daemon's address in a browser or with curl learns it is svc.
 */
export function rootRoute(app: App): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const base = app.config.server.baseUrl.replace(/\/+$/, '');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      name: 'svc',
      version: VERSION,
      about: 'A self-hosted daemon that serves SEO articles to blogs (content API), AI agents (MCP) and webhook receivers. Nothing is served at /.',
      endpoints: { contentApi: `${base}/api/v1/content/articles`, mcp: `${base}/api/mcp`, health: `${base}/healthz`, signIn: `${base}/login` },
      docs: 'README.md and docs/ in the svc source: docs/content-api.md (blog keys), docs/mcp.md (agents), docs/operations.md',
    };
  };
}
