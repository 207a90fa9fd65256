import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
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

type WebhookConfig = Config['webhooks'];

/**
 * An idle connection to a receiver is kept this long for the next delivery (shorter when the
 * receiver's Keep-Alive header says it closes sooner: node:http keeps one second below that).
 * Short, so a drain reuses its connections while an idle daemon holds none.
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * POST bytes once: no redirects followed (a 3xx is just a status), one timeout for the whole
 * exchange, response read up to `maxBytes`, connections only to addresses the SSRF guard allows.
 * The connection is kept for the next POST to the same receiver when the answer came whole and
 * the receiver allows it (HTTP keep-alive); a kept connection the receiver closed meanwhile (the
 * request failed on it before any answer) is tried once more on a new one, within the same timeout.
 * `signal` gives up the exchange (the connection is closed). Never throws: every outcome is a PostResult.
 */
export async function postOnce(target: string, body: Buffer, headers: Record<string, string>, config: WebhookConfig, signal?: AbortSignal): Promise<PostResult> {
  const started = performance.now();
  const first = await exchange(target, body, headers, config, config.timeout, true, signal);
  if (!first.staleConnection) return first.result;
  const left = Math.max(1, config.timeout - (performance.now() - started));
  const again = await exchange(target, body, headers, config, left, false, signal);
  return { ...again.result, durationMs: Math.round(performance.now() - started) };
}

/** One request. `reuse`: on a kept connection if there is one, else on a new connection closed after it. */
function exchange(
  target: string,
  body: Buffer,
  headers: Record<string, string>,
  config: WebhookConfig,
  timeoutMs: number,
  reuse: boolean,
  signal?: AbortSignal,
): Promise<{ result: PostResult; staleConnection: boolean }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let resHeaders: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    /**
     * `ended`: the response came whole; node:http then keeps or closes the connection itself, once
     * our request went out whole too. A receiver that answered early and stopped reading the rest
     * would hold that connection with nothing left to end it: closed here, as every other outcome.
     */
    const finish = (error: string | null, ended = false, staleConnection = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      forget();
      if (!ended || !req.writableFinished) req.destroy();
      resolve({ result: { status, headers: resHeaders, body: Buffer.concat(chunks).subarray(0, config.responseExcerptBytes).toString('utf8'), error, durationMs: elapsed() }, staleConnection });
    };
    let url: URL;
    try {
      if (signal?.aborted) throw new Error(GIVEN_UP);
      url = parsed(target);
      assertLiteralAllowed(url, config);
    } catch (err) {
      settled = true;
      resolve({ result: { status: null, headers: {}, body: '', error: (err as Error).message, durationMs: elapsed() }, staleConnection: false });
      return;
    }
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

const GIVEN_UP = 'given up: the daemon is shutting down';

/**
 * Run `fn` when `signal` aborts; returns what forgets it. One listener per signal, whatever the
 * requests in flight (the worker gives all its requests one signal): a listener of an AbortSignal
 * added and removed per request cost about 10 us of each delivery.
 */
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

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND') return 'host not found';
  if (err.code === 'ECONNRESET') return 'connection reset by the receiver';
  return err.message || String(err.code ?? err);
}

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

/**
 * The kept connections and the guarded lookup, one set per configuration (a process has one). No
 * bound on connections in use: the worker bounds requests per receiver
 * (webhooks.concurrencyPerReceiver), and a pool that queued requests would make one receiver's
 * requests wait behind another's on the same host. Idle ones: at most concurrencyPerReceiver per
 * receiver and twice webhooks.concurrency in all (a daemon sending to thousands of receivers must
 * not hold a descriptor for each); a connection that finds the bound reached closes as it would
 * have without keep-alive. Each was checked by the SSRF guard when it connected; an idle one does
 * not keep the process alive.
 */
interface Connections {
  http: http.Agent;
  https: https.Agent;
  lookup: ReturnType<typeof guardedLookup>;
}
const connections = new WeakMap<WebhookConfig, Connections>();
function connectionsFor(config: WebhookConfig): Connections {
  let found = connections.get(config);
  if (!found) {
    const options = { keepAlive: true, maxFreeSockets: config.concurrencyPerReceiver, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
    const made = { http: new http.Agent(options), https: new https.Agent(options), lookup: guardedLookup(config) };
    const most = 2 * config.concurrency;
    for (const agent of [made.http, made.https]) {
      // node:http's own hook: false closes the connection instead of keeping it.
      const keep = agent.keepSocketAlive.bind(agent) as unknown as (socket: Duplex) => boolean;
      agent.keepSocketAlive = ((socket: Duplex) => idleIn(made.http) + idleIn(made.https) < most && keep(socket)) as never;
    }
    connections.set(config, (found = made));
  }
  return found;
}

const idleIn = (agent: http.Agent): number => {
  let n = 0;
  for (const list of Object.values(agent.freeSockets)) n += list?.length ?? 0;
  return n;
};

/** Close the kept connections that are idle (the daemon stopping; requests in flight are the worker's to end). */
export function closeIdleConnections(config: WebhookConfig): void {
  const found = connections.get(config);
  if (!found) return;
  for (const agent of [found.http, found.https]) for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) socket.destroy();
}
