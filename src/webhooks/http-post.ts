import http from 'node:http';
import https from 'node:https';
import type { Config } from '../config/schema.js';
import { assertLiteralAllowed, guardedLookup } from './targets.js';

export interface PostResult {
  /** HTTP status, or null when no response came (timeout, refused, network error). */
  status: number | null;
  headers: http.IncomingHttpHeaders;
  /** The start of the response body, up to the configured bound. */
  body: string;
  error: string | null;
  durationMs: number;
}

/**
 * POST bytes once: no redirects followed (a 3xx is just a status), one timeout for the whole
 * exchange, response read up to `maxBytes`, connections only to addresses the SSRF guard allows.
 * `signal` gives up the exchange (the connection is closed). Never throws: every outcome is a PostResult.
 */
export function postOnce(target: string, body: Buffer, headers: Record<string, string>, config: Config['webhooks'], signal?: AbortSignal): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let resHeaders: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    /** `ended`: the response came whole; node:http closes that connection itself (Connection: close). */
    const finish = (error: string | null, ended = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (!ended) req.destroy();
      resolve({ status, headers: resHeaders, body: Buffer.concat(chunks).subarray(0, config.responseExcerptBytes).toString('utf8'), error, durationMs: elapsed() });
    };
    let url: URL;
    try {
      if (signal?.aborted) throw new Error(GIVEN_UP);
      url = parsed(target);
      assertLiteralAllowed(url, config);
    } catch (err) {
      settled = true;
      resolve({ status: null, headers: {}, body: '', error: (err as Error).message, durationMs: elapsed() });
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(body.length), 'User-Agent': 'svc-webhooks/1' },
      lookup: lookupFor(config) as never,
      agent: false,
    });
    const onAbort = () => finish(GIVEN_UP);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      // A receiver that answered 2xx but is slow to finish its body still answered in time.
      finish(status === null ? `timed out after ${config.timeout} ms` : null);
    }, config.timeout);
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      resHeaders = res.headers;
      res.on('data', (chunk: Buffer) => {
        if (size < config.responseExcerptBytes) chunks.push(chunk);
        size += chunk.length;
        if (size >= config.responseExcerptBytes) finish(null);
      });
      res.on('end', () => finish(null, true));
      res.on('error', () => finish(null));
    });
    req.on('error', (err) => finish(status === null ? describeError(err) : null));
    req.end(body);
  });
}

const GIVEN_UP = 'given up: the daemon is shutting down';

// A drain sends to a handful of receivers thousands of times: their URLs are parsed, and the
// guarded lookup made, once (both read only).
const urls = new Map<string, URL>();
const parsed = (target: string): URL => {
  let url = urls.get(target);
  if (!url) {
    if (urls.size >= 1_000) urls.clear();
    url = new URL(target);
    urls.set(target, url);
  }
  return url;
};
const lookups = new WeakMap<Config['webhooks'], ReturnType<typeof guardedLookup>>();
const lookupFor = (config: Config['webhooks']) => {
  let lookup = lookups.get(config);
  if (!lookup) lookups.set(config, (lookup = guardedLookup(config)));
  return lookup;
};

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND') return 'host not found';
  if (err.code === 'ECONNRESET') return 'connection reset by the receiver';
  return err.message || String(err.code ?? err);
}
