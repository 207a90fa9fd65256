import Router from '@koa/router';
import type { App } from '../app.js';
import { AppError, notFound } from '../errors.js';
import { publicImage, publicImageBytes } from '../images/service.js';
import { isNotModified } from './middleware/conditional-get.js';

// Every image may be shown anywhere, forever: its URL names its bytes. The CSP makes an SVG
// opened on its own inert (no scripts, no requests out; inside an <img> a browser runs none anyway).
const HEADERS = {
  'Cache-Control': 'public, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Access-Control-Allow-Origin': '*',
};

const FILE = /^([0-9a-f]{64})\.([a-z]{3,4})$/;

/**
 * GET and HEAD /media/<sha256>.<ext>: the image store's bytes, public (images in published articles
 * are public). A strong ETag (the hash) answers If-None-Match with 304 without reading the bytes;
 * an unknown hash or an extension that is not the image's type is 404.
 *
 * The database hands an image over whole, and the response holds it until the client has read
 * it: images.maxBytesInFlight bounds the bytes held at once (503 busy past it), and a client that
 * takes nothing for images.sendTimeout is cut off, so slow or stalled readers cannot grow memory.
 */
export function createMediaRouter(app: App): Router {
  const { maxBytes, maxBytesInFlight, sendTimeout } = app.config.images;
  const budget = Math.max(maxBytesInFlight, maxBytes);
  let held = 0;
  const router = new Router();
  router.get('/media/:file', async (ctx) => {
    const m = FILE.exec(ctx.params.file);
    const image = m ? await publicImage(app, m[1]) : undefined;
    if (!m || !image || image.ext !== m[2]) throw notFound('image', ctx.params.file);
    ctx.status = 200;
    ctx.set(HEADERS);
    ctx.set('ETag', `"${image.hash}"`);
    ctx.type = image.contentType;
    if (isNotModified((name) => ctx.get(name), `"${image.hash}"`, null)) {
      ctx.status = 304;
      return;
    }
    if (ctx.method === 'HEAD') {
      ctx.length = image.size;
      return;
    }
    if (held + image.size > budget) {
      throw new AppError('busy', 503, 'Too many images are being sent right now; try again in a moment', { expose: true, details: { retryAfterSeconds: 1 } });
    }
    held += image.size;
    let released = false;
    const release = () => {
      if (!released) held -= image.size;
      released = true;
    };
    ctx.res.once('close', release);
    const bytes = await publicImageBytes(app, image.hash).catch((err: unknown) => {
      release();
      throw err;
    });
    if (!bytes) {
      release();
      throw notFound('image', ctx.params.file);
    }
    // The clock starts once the bytes are in hand: a slow database read is not a slow client.
    ctx.res.setTimeout(sendTimeout, () => ctx.res.destroy());
    ctx.body = bytes;
  });
  return router;
}
