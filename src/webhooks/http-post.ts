import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { type WebhookConfig, assertLiteralAllowed, guardedLookup } from './targets.js';

export interface PostResult {
  /** HTTP status, or null when no response came (timeout, refused, network error). */
  status: number | null;
  headers: http.IncomingHttpHeaders;
  /** The start of the response body (webhooks.responseExcerptBytes). */
  body: string;
  error: string | null;
  durationMs: number;
}

/** Short: a drain reuses its connections, an idle daemon holds none (a shorter Keep-Alive of the receiver wins). */
const IDLE_CONNECTION_MS = 4_000;

/** POST once (no redirects, one timeout, SSRF-guarded addresses); a kept connection the receiver closed meanwhile is tried once more on a new one. Never throws. */
export async function postOnce(target: string, body: Buffer, headers: Record<string, string>, config: WebhookConfig, signal?: AbortSignal): Promise<PostResult> {
  const began = performance.now();
  const first = await exchange(config.timeout, true);
  if (!first.staleConnection) return first.result;
  const again = await exchange(Math.max(1, config.timeout - (performance.now() - began)), false);
  return { ...again.result, durationMs: Math.round(performance.now() - began) };

  /** One request. `reuse`: on a kept connection if there is one, else on a new connection closed after it. */
  function exchange(timeoutMs: number, reuse: boolean): Promise<{ result: PostResult; staleConnection: boolean }> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      if (signal?.aborted) throw new Error(GIVEN_UP);
      url = parsed(target);
      assertLiteralAllowed(url, config);
    } catch (err) {
      return Promise.resolve({ result: { status: null, headers: {}, body: '', error: (err as Error).message, durationMs: elapsed() }, staleConnection: false });
    }
    return new Promise((resolve) => {
      let settled = false;
      let status: number | null = null;
      let resHeaders: http.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      // `ended`: the answer came whole, and node:http keeps or closes the connection once our request
      // went out whole too; any other connection (a receiver that stopped reading early) is closed here.
      const finish = (error: string | null, ended = false, staleConnection = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        forget();
        if (!ended || !req.writableFinished) req.destroy();
        // NUL as U+FFFD: the answer is quoted in text columns, and PostgreSQL's text refuses NUL.
        const body = Buffer.concat(chunks).subarray(0, config.responseExcerptBytes).toString('utf8').replaceAll('\0', '\uFFFD');
        resolve({ result: { status, headers: resHeaders, body, error, durationMs: elapsed() }, staleConnection });
      };
      const tls = url.protocol === 'https:';
      const kept = connectionsFor(config);
      const req = (tls ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(body.length), 'User-Agent': 'svc-webhooks/1' },
        lookup: kept.lookup as never,
        agent: reuse ? kept[tls ? 'https' : 'http'] : false,
      });
      const forget = signal ? onAbort(signal, () => finish(GIVEN_UP)) : () => {};
      const timer = setTimeout(() => {
        // A receiver that answered 2xx but is slow to finish its body still answered in time.
        finish(status === null ? `timed out after ${config.timeout} ms` : null);
      }, timeoutMs);
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
      req.on('error', (err: NodeJS.ErrnoException) => {
        const stale = status === null && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish(status === null ? describeError(err) : null, false, stale);
      });
      req.end(body);
    });
  }
}

const GIVEN_UP = 'given up: the daemon is shutting down';

// Run `fn` when `signal` aborts; returns what forgets it. One listener per signal (the worker gives
// all its requests one): a listener added and removed per request cost about 10 us a delivery.
const aborters = new WeakMap<AbortSignal, Set<() => void>>();
function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = aborters.get(signal);
  if (!set) {
    const all = new Set<() => void>();
    signal.addEventListener('abort', () => all.forEach((f) => f()), { once: true });
    aborters.set(signal, (set = all));
  }
  set.add(fn);
  return () => set.delete(fn);
}

const ERRORS = new Map([['ECONNREFUSED', 'connection refused'], ['ENOTFOUND', 'host not found'], ['ECONNRESET', 'connection reset by the receiver']]);
const describeError = (err: NodeJS.ErrnoException): string => ERRORS.get(err.code ?? '') ?? (err.message || String(err.code ?? err));

// A drain sends to a handful of receivers thousands of times: their URLs are parsed once (read only).
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

// Kept connections, one set per configuration. None bounds those in use (the worker does: a pool that
// queued would make receivers on one host wait for each other); idle ones, at most concurrencyPerReceiver
// a receiver and twice webhooks.concurrency in all (not a descriptor for each of thousands of receivers).
const connections = new WeakMap<WebhookConfig, { http: http.Agent; https: https.Agent; lookup: ReturnType<typeof guardedLookup> }>();
function connectionsFor(config: WebhookConfig) {
  let found = connections.get(config);
  if (!found) {
    const options = { keepAlive: true, maxFreeSockets: config.concurrencyPerReceiver, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
    const made = { http: new http.Agent(options), https: new https.Agent(options), lookup: guardedLookup(config) };
    const most = 2 * config.concurrency;
    for (const agent of [made.http, made.https]) {
      // node:http's own hook: false closes the connection instead of keeping it.
      const keep = agent.keepSocketAlive.bind(agent) as unknown as (socket: Duplex) => boolean;
      agent.keepSocketAlive = ((socket: Duplex) => idle(made.http).length + idle(made.https).length < most && keep(socket)) as never;
    }
    connections.set(config, (found = made));
  }
  return found;
}

const idle = (agent: http.Agent) => Object.values(agent.freeSockets).flatMap((list) => list ?? []);

/** Close the idle kept connections (the daemon stopping; requests in flight are the worker's to end). */
export function closeIdleConnections(config: WebhookConfig): void {
  const found = connections.get(config);
  if (!found) return;
  for (const socket of [found.http, found.https].flatMap(idle)) socket.destroy();
}
