import { AppError } from '../errors.js';

/**
 * Request bodies are accepted uncompressed only (a gzip, br or deflate body that did
 * not match its Content-Encoding gave 500s). Any other coding is a 415 with
 * `Accept-Encoding: identity` (RFC 7694 section 3), the same on every endpoint: no client we
 * serve compresses requests, and no decompression means no zip bomb.
 */
export function requireIdentityEncoding(ctx: { get(field: string): string; set(field: string, value: string): void }): void {
  const coding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return;
  ctx.set('Accept-Encoding', 'identity');
  throw new AppError('unsupported_content_encoding', 415, `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported: send the body uncompressed`);
}
