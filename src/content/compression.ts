import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** The codings the content API offers, in order of preference (br is smaller at the same speed). */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/**
 * Bodies below this are sent as they are: a TCP segment holds them anyway, and compressing a few
 * hundred bytes of JSON saves less than its own headers cost (express's `compression` uses 1 KB too).
 */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Brotli quality 5 and gzip level 6, measured on the 10k-article sitemap (1 MB, docs/content-api.md
 * "Compression"): br 5 gives 4.0 % in 6.6 ms, gzip 6 8.5 % in 3.3 ms; br 8 saves 10 % more for
 * twice the time, br 11 takes 1.1 s, and a sitemap is compressed again after every publish.
 */
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Compress off the event loop (zlib's thread pool). */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'gzip') return gzip(body, { level: GZIP_LEVEL });
  return brotli(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** The ETag of a coded variant: its own strong validator, derived from the identity one ("abc" -> "abc-br"). */
export const codedEtag = (etag: string, coding: Coding): string => `${etag.slice(0, -1)}-${coding}"`;
