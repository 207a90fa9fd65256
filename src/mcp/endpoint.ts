import type { Middleware } from 'koa';
import type { App } from '../app.js';

// PLACEHOLDER: POST /api/mcp (issue 5).
export function createMcpEndpoint(_app: App): Middleware {
  return (_ctx, next) => next();
}
