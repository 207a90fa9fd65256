import type { Context } from 'koa';

/** Headers the content API lets browsers read (decisions.md: CORS on every response). */
const EXPOSED = 'ETag, Last-Modified, Retry-After, Cache-Control';

/** CORS for a public read-only API: any origin, no credentials (the key is a header or query). */
export function setCorsHeaders(ctx: Context): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', EXPOSED);
  // No Vary: Origin: the answer is the same for every origin.
}

/** Answer a preflight: GET with Authorization / X-Api-Key (and conditional headers) allowed. */
export function answerPreflight(ctx: Context): void {
  setCorsHeaders(ctx);
  ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Authorization, X-Api-Key, Content-Type, If-None-Match, If-Modified-Since, Cache-Control');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.status = 204;
}
