import { z } from 'zod';
import { duration } from './duration.js';

/**
 * The whole configuration, key for key as in config.example.yaml. Every leaf can be overridden
 * by an SVC_* variable derived from its path (server.baseUrl -> SVC_SERVER_BASE_URL); see load.ts.
 */
export const configSchema = z
  .object({
    /** Where the SQLite file and other local state live. */
    dataDir: z.string().min(1).default('./data'),
    /**
     * Where a running daemon leaves its record (what it serves) for the CLI, whatever the data
     * directory; default: /run/svc when root or writable, else $XDG_STATE_HOME/svc or ~/.local/state/svc.
     */
    stateDir: z.string().min(1).optional(),
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.coerce.number().int().min(0).max(65535).default(8080),
        /** Public base address used in URLs and OAuth metadata; defaults to http://<host>:<port>. */
        baseUrl: z.string().url().optional(),
        /** Trust X-Forwarded-* headers from a reverse proxy (needed for Secure cookies behind TLS). */
        trustProxy: z.boolean().default(false),
        /**
         * With trustProxy: how many proxies append to X-Forwarded-For. The client address is the
         * entry that many places from the right (1: the one the proxy appended); entries further
         * left were written by the client and are never trusted.
         */
        proxyHops: z.coerce.number().int().min(1).max(10).default(1),
        /** Extra browser origins allowed to call /api/mcp (our own origin is always allowed). */
        allowedOrigins: z.array(z.string()).default([]),
        /** How long a shutdown waits for in-flight requests and jobs before cutting them (exit 3); keep below the service manager's stop timeout. */
        shutdownTimeout: duration().default('10s'),
        /** How long GET /healthz waits for the database before reporting it unavailable (503). */
        readinessTimeout: duration().default('2s'),
      })
      .strict()
      .default({}),
    database: z
      .object({
        client: z.enum(['sqlite3', 'pg']).default('sqlite3'),
        /** SQLite file; defaults to <dataDir>/svc.sqlite. */
        filename: z.string().optional(),
        /** PostgreSQL connection string; setting it switches the client to pg. */
        url: z.string().optional(),
        poolMax: z.coerce.number().int().min(1).max(100).default(4),
        /** Use a SQLite file that `svc db copy` marked as moved to PostgreSQL anyway (docs/operations.md). */
        ignoreMoved: z.boolean().optional(),
        /** PostgreSQL: opening a connection (TCP, TLS, authentication) gives up after this. */
        connectTimeout: duration().default('5s'),
        /** Waiting for a free connection of the pool gives up after this. */
        acquireTimeout: duration().default('10s'),
        /** PostgreSQL: one query gives up after this, on the client (a silent link) and on the server (statement_timeout). */
        queryTimeout: duration().default('10s'),
        /** PostgreSQL: TCP keepalive probes start after a connection was idle this long (every connection of the pool and of svc's own). */
        keepAlive: duration().default('10s'),
        /** SQLite: a write waits this long for another writer (busy_timeout) before failing. */
        busyTimeout: duration().default('5s'),
        /** PostgreSQL: `svc backup` ends pg_dump (and pg_restore's check of the archive) after this, with an error naming it. */
        backupTimeout: duration().default('1h'),
      })
      .strict()
      .default({}),
    logging: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      })
      .strict()
      .default({}),
    content: z
      .object({
        /** Requests per minute per blog key (token bucket). */
        rateLimitPerMinute: z.coerce.number().int().min(1).default(600),
        /** Bytes of serialized responses kept in memory. */
        cacheMaxBytes: z.coerce.number().int().min(0).default(64 * 1024 * 1024),
        /** How long a draft preview token (svc articles preview) lasts unless the command says otherwise. */
        previewTtl: duration().default('24h'),
        /** The longest a content API request waits for the database; then 503 `unavailable` with Retry-After (docs/content-api.md). */
        timeout: duration().default('3s'),
        /** Searches of one blog key (`?q=`), MCP API key or OAuth connection running at once; the daemon runs at most half of database.poolMax (at least 1) in all. */
        searchConcurrency: z.coerce.number().int().min(1).max(16).default(2),
        /** How long a search waits for a free slot before it is refused 429 with Retry-After. */
        searchWait: duration().default('1s'),
      })
      .strict()
      .default({}),
    rendering: z
      .object({
        /** A body's render (HTML, text, outline, word count, FAQ, audit) is stopped after this much CPU time (or four times as long waiting for a core); its worker is replaced and the caller gets 422 render_timeout. */
        timeout: duration().default('5s'),
        /** Worker threads that render markdown off the event loop; 0 is one per core. */
        workers: z.coerce.number().int().min(0).max(64).default(0),
        /** Memory for rendered draft previews, in bytes (one per article version): a preview link renders once per edit, not once per view. */
        previewCacheBytes: z.coerce.number().int().min(0).default(16 * 1024 * 1024),
      })
      .strict()
      .default({}),
    webhooks: z
      .object({
        timeout: duration().default('15s'),
        /** Attempts in flight at once in one daemon, across every receiver. */
        concurrency: z.coerce.number().int().min(1).max(256).default(16),
        /** Attempts in flight at once to one receiver (one workspace's webhook): a slow receiver holds at most this many. */
        concurrencyPerReceiver: z.coerce.number().int().min(1).max(64).default(4),
        retrySchedule: z.array(duration()).default(['30s', '2m', '10m', '1h', '3h', '6h', '12h', '24h']),
        /** Disable a webhook whose every delivery failed for this long. */
        disableAfter: duration().default('5d'),
        /** How often the worker looks for due deliveries written by other processes. */
        pollInterval: duration().default('1s'),
        /** Allow loopback and private-network targets (development, or a receiver on the same host). */
        allowPrivateNetworks: z.boolean().default(false),
        /** Exact host names allowed even when they resolve to private addresses. */
        allowedHosts: z.array(z.string()).default([]),
        /** Memory for the events a daemon holds claimed, waiting or in flight (their articles, bodies included); one event is taken whatever its size. */
        claimedBytes: z.coerce.number().int().min(1).default(33_554_432),
        /** Bytes of a receiver's answer kept in the delivery log. */
        responseExcerptBytes: z.coerce.number().int().min(0).default(2048),
        /** Resolving a webhook's host gives up after this: when it is added (checked again at delivery), and for each new connection a delivery makes. */
        dnsTimeout: duration().default('5s'),
        /** How often a process holding webhook leases (a daemon, or a CLI waiting for its receiver) says it is alive. */
        heartbeatInterval: duration().default('2s'),
        /** A holder not heard from for this long is gone: its leases are void and another daemon takes its events over. */
        heartbeatStaleAfter: duration().default('10s'),
        /** Delivered, failed and cancelled events and delivery log entries older than this are deleted (the newest of each article is kept). */
        retention: duration().default('30d'),
      })
      .strict()
      .superRefine((w, ctx) => {
        if (w.heartbeatStaleAfter < 2 * w.heartbeatInterval) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['heartbeatStaleAfter'], message: 'must be at least twice webhooks.heartbeatInterval (a live holder must not look gone after one late beat)' });
        }
      })
      .default({}),
    oauth: z
      .object({
        accessTokenTtl: duration().default('1h'),
        authorizationCodeTtl: duration().default('10m'),
        /** A rotated refresh token keeps working this long (parallel refreshes). */
        refreshTokenGrace: duration().default('60s'),
        /** A connection unused this long expires. */
        connectionIdleExpiry: duration().default('30d'),
        /** Registered clients that never got a grant are removed after this long. */
        unusedClientExpiry: duration().default('1d'),
        sessionTtl: duration().default('7d'),
      })
      .strict()
      .default({}),
    mcp: z
      .object({
        /** Calls per minute per connection or API key, every JSON-RPC message counted (requests and notifications, inside a batch too). */
        rateLimitPerMinute: z.coerce.number().int().min(1).default(120),
        /** publish_article waits at most this long for the webhook's first attempt before answering "still pending" (at most 30s). */
        publishWait: duration()
          .default('5s')
          .refine((ms) => ms <= 30_000, 'must be at most 30s (the agent is waiting for the answer)'),
      })
      .strict()
      .default({}),
    /** Rate limits and throttles shared by every daemon (docs/deployment.md, "Limits across daemons"). */
    limits: z
      .object({
        /** Where counters live: auto = redis when redis.url is set, else postgres on PostgreSQL, else memory (one process). */
        store: z.enum(['auto', 'memory', 'postgres', 'redis']).default('auto'),
        /** Content API requests a daemon takes from the shared store at once per blog key; a busy key's batches grow up to the limit / 20 (docs/deployment.md). */
        contentLeaseSize: z.coerce.number().int().min(1).max(100).default(10),
        signIn: z
          .object({
            /** Sign-in attempts per account from one address per window (a success resets it). */
            perAccountAddress: z.coerce.number().int().min(1).default(5),
            /** Failed sign-in attempts per address across all accounts per window. */
            perAddress: z.coerce.number().int().min(1).default(30),
            /** ...and per network (an IPv6 /48) per window; an IPv4 address has perAddress alone. */
            perNetwork: z.coerce.number().int().min(1).default(150),
            window: duration().default('15m'),
          })
          .strict()
          .default({}),
        registration: z
          .object({
            /** OAuth dynamic client registrations per address per window. */
            perAddress: z.coerce.number().int().min(1).default(20),
            /** ...and per network (an IPv6 /48) per window; an IPv4 address has perAddress alone. */
            perNetwork: z.coerce.number().int().min(1).default(100),
            window: duration().default('1h'),
          })
          .strict()
          .default({}),
        wrongBlogKey: z
          .object({
            /** Content API requests refused for their blog key (missing or wrong) per address per window; beyond, 429 whatever the key. */
            perAddress: z.coerce.number().int().min(1).default(60),
            window: duration().default('1m'),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({}),
    redis: z
      .object({
        /** redis://[:password@]host:port[/db]; when set (and limits.store is auto), limits are counted in Redis. */
        url: z.string().optional(),
        /** Prefix of every key svc writes (several installations may share one Redis). */
        keyPrefix: z.string().default('svc:'),
        /** Connecting to Redis gives up after this. */
        connectTimeout: duration().default('2s'),
        /** One Redis command gives up after this (the limits then count in this daemon alone). */
        commandTimeout: duration().default('1s'),
      })
      .strict()
      .default({}),
    /** Prometheus metrics (docs/monitoring.md). Off the public port unless a token is set. */
    metrics: z
      .object({
        /** host:port of a separate listener answering GET /metrics; empty for none. Keep it on loopback or a private network. */
        listen: z
          .string()
          .trim()
          .refine((v) => v === '' || listenAddress(v) !== null, 'must be host:port (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464; port 0 picks a free one), or empty for no listener')
          .default(''),
        /** Bearer token a scraper must send; when set, /metrics is also served on the public port (with the token). */
        token: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
      })
      .strict()
      .default({}),
    scheduler: z
      .object({
        /** How often scheduled publishes and expiries are checked. */
        interval: duration().default('1s'),
      })
      .strict()
      .default({}),
    /** The image store (docs/importing.md "Images"): images added by import, `svc images add` and the upload_image tool. */
    images: z
      .object({
        /** The largest image svc stores, in bytes (refused with image_too_large above it); the upload_image tool takes at most 3 MB whatever this says. */
        maxBytes: z.coerce.number().int().min(1).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
        /** The bytes of images one workspace may hold in all; an add past it is refused (image_store_full): agents upload, and nothing removes images but `svc images remove`. */
        workspaceMaxBytes: z.coerce.number().int().min(1).default(1024 * 1024 * 1024),
        /** Bytes of image bodies /media holds at once, waiting for their clients to read them (never less than maxBytes); past it, 503 busy. */
        maxBytesInFlight: z.coerce.number().int().min(1).default(64 * 1024 * 1024),
        /** A client that takes no bytes of an image for this long is cut off, so a stalled reader cannot hold its share for ever. */
        sendTimeout: duration().default('30s'),
      })
      .strict()
      .default({}),
    /** Keyword research (docs/keywords.md): the data provider agents and `svc keywords lookup` use. */
    keywords: z
      .object({
        /** `none` (lookups are refused; imported keywords still list) or `dataforseo`. */
        provider: z.enum(['none', 'dataforseo']).default('none'),
        dataforseo: z
          .object({
            /** API login and API password from https://app.dataforseo.com/api-access (not the account password). */
            login: z.string().min(1).optional(),
            password: z.string().min(1).optional(),
            /** https://sandbox.dataforseo.com answers every endpoint with free dummy data. */
            baseUrl: z
              .string()
              .url()
              .refine((v) => /^https?:\/\//i.test(v) && !new URL(v).username && !new URL(v).password, 'must be an http(s) URL without credentials in it')
              .default('https://api.dataforseo.com'),
            /** Time one lookup may take with its retries (MCP clients give up after 60s). */
            timeout: duration().default('40s'),
            /** Extra attempts after a 5xx answer or a dropped connection. */
            retries: z.coerce.number().int().min(0).max(5).default(2),
          })
          .strict()
          .default({}),
      })
      .strict()
      .superRefine((k, ctx) => {
        if (k.provider !== 'dataforseo') return;
        for (const key of ['login', 'password'] as const) {
          if (!k.dataforseo[key]) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['dataforseo', key], message: `required when keywords.provider is dataforseo (SVC_KEYWORDS_DATAFORSEO_${key.toUpperCase()})` });
          }
        }
      })
      .default({}),
  })
  .strict();

/** `host:port` (IPv6 in brackets) as its parts, or null. */
export function listenAddress(value: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(value.trim());
  if (!m) return null;
  const port = Number(m[3]);
  return port <= 65535 ? { host: m[1] ?? m[2], port } : null;
}

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema> & {
  server: z.output<typeof configSchema>['server'] & { baseUrl: string };
  database: z.output<typeof configSchema>['database'] & { filename: string };
  /** Path of the config file that was read, if any. */
  source: string | null;
  /** Where each setting that is not a default came from: `<file>: <key>`, an SVC_* variable or a flag. */
  sources: Record<string, string>;
  /** Where daemon records are read, the first writable one is where a daemon writes its own (config/load.ts stateDirs). */
  stateDirs: string[];
  /** SVC_* variables that name no setting (likely typos); the daemon logs them at start. */
  unknownEnv: string[];
};
