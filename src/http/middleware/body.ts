import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { requireIdentityEncoding } from '../../lib/content-encoding.js';

/**
 * The one body parser of the Koa routes: @koa/bodyparser behind the Content-Encoding rule
 * (lib/content-encoding.ts), so a compressed or mislabelled body is a 415 before any inflating.
 * The surface's own error middleware renders it (API envelope, RFC 6749, error page).
 */
export function parseBody(options: NonNullable<Parameters<typeof bodyParser>[0]>): Middleware {
  const parse = bodyParser(options);
  return async (ctx, next) => {
    const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody) requireIdentityEncoding(ctx);
    return parse(ctx, next);
  };
}
