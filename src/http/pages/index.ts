import type { Middleware } from 'koa';
import type { App } from '../../app.js';

// PLACEHOLDER: login, consent and connections pages (issue 6).
export function createPagesRouter(_app: App): Middleware {
  return (_ctx, next) => next();
}
