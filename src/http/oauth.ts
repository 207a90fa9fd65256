import type { Middleware } from 'koa';
import type { App } from '../app.js';

// PLACEHOLDER: filled in by its issue.
export function createOAuthRouter(_app: App): Middleware {
  return (_ctx, next) => next();
}
