import { Redis } from 'ioredis';
import { type IRateLimiterOptions, type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Ctx } from '../context.js';
import { isPostgres } from '../db/connect.js';
import { AppError } from '../errors.js';

export type StoreKind = 'memory' | 'postgres' | 'redis';

export interface LimiterSpec {
  /** Distinguishes this limit's keys from the others' in the shared store. */
  name: string;
  points: number;
  durationMs: number;
  /** Once a key is over, refuse it from memory until its window ends (no store round trip). */
  blockInMemory?: boolean;
}

/** Opens rate-limiter-flexible limiters over one store chosen from the config. */
export interface LimiterStore {
  readonly kind: StoreKind;
  limiter(spec: LimiterSpec): RateLimiterAbstract;
  close(): Promise<void>;
}

/** The table migrations/2026-11-24-0900-create-rate-limits.ts creates (never the limiter itself). */
const PG_TABLE = 'rate_limits';

export function chooseStoreKind(ctx: Ctx): StoreKind {
  const { store } = ctx.config.limits;
  const pg = isPostgres(ctx.db);
  if (store === 'redis' && !ctx.config.redis.url) throw new AppError('config_invalid', 500, 'limits.store is redis but redis.url (SVC_REDIS_URL) is not set');
  if (store === 'postgres' && !pg) throw new AppError('config_invalid', 500, 'limits.store is postgres but the database is SQLite');
  if (store !== 'auto') return store;
  return ctx.config.redis.url ? 'redis' : pg ? 'postgres' : 'memory';
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function openLimiterStore(ctx: Ctx): LimiterStore {
  const kind = chooseStoreKind(ctx);
  if (kind === 'memory') {
    return { kind, limiter: (s) => new RateLimiterMemory({ keyPrefix: s.name, points: s.points, duration: seconds(s.durationMs) }), close: async () => {} };
  }
  const redis = kind === 'redis' ? connectRedis(ctx) : undefined;
  const RedisLimiter = redis ? waitingForFirstConnection(redis) : undefined;
  let cleaner = false;
  const insurance = insuranceFor(ctx, kind);
  return {
    kind,
    limiter(s) {
      const base = {
        points: s.points,
        duration: seconds(s.durationMs),
        ...(s.blockInMemory ? { inMemoryBlockOnConsumed: s.points + 1 } : {}),
        insuranceLimiter: insurance(s),
      };
      if (redis && RedisLimiter) return new RedisLimiter({ ...base, storeClient: redis, keyPrefix: `${ctx.config.redis.keyPrefix}${s.name}`, rejectIfRedisNotReady: true });
      // Rows of every limit share one table (keys carry the limit's name); one limiter sweeps expired rows.
      const clearExpiredByTimeout = !cleaner;
      cleaner = true;
      return new RateLimiterPostgres({ ...base, storeClient: ctx.db, storeType: 'knex', tableName: PG_TABLE, tableCreated: true, keyPrefix: s.name, clearExpiredByTimeout });
    },
    async close() {
      if (redis) redis.disconnect();
    },
  };
}

/**
 * A Redis client that fails fast: no offline queue and one retry per command, so a Redis outage
 * sends the limiter to its insurance at once instead of holding requests while it reconnects;
 * and a command timeout, so a Redis that is connected but silent (paused, partitioned without a
 * reset) holds a request at most that long before the insurance answers.
 */
function connectRedis(ctx: Ctx): Redis {
  const redis = new Redis(ctx.config.redis.url!, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: ctx.config.redis.connectTimeout,
    commandTimeout: ctx.config.redis.commandTimeout,
    retryStrategy: (n) => Math.min(n * 200, 2000),
  });
  let lastWarned = 0;
  redis.on('error', (err) => {
    const now = Date.now();
    if (now - lastWarned < 60_000) return;
    lastWarned = now;
    ctx.log.warn({ err: err.message }, 'Redis for rate limits is unreachable: each daemon limits on its own meanwhile');
  });
  return redis;
}

/**
 * RateLimiterRedis whose calls made while the client connects for the first time wait for it (up
 * to 2 s), so a daemon's first requests are counted in Redis rather than by the insurance alone.
 * After that a call made while Redis is unreachable goes to the insurance at once.
 */
function waitingForFirstConnection(redis: Redis) {
  const firstReady = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    timer.unref();
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return class extends RateLimiterRedis {
    override async consume(...args: Parameters<RateLimiterRedis['consume']>) {
      await firstReady;
      return super.consume(...args);
    }
  };
}

/**
 * The insurance of each shared limiter: the same limit in this process's memory, used while the
 * store fails (fail-open to per-daemon limits, never a 500). Warns at most once a minute.
 */
function insuranceFor(ctx: Ctx, kind: StoreKind): (s: LimiterSpec) => RateLimiterMemory {
  let lastWarned = 0;
  class Insurance extends RateLimiterMemory {
    constructor(opts: IRateLimiterOptions) {
      super(opts);
    }
    override consume(...args: Parameters<RateLimiterMemory['consume']>) {
      const now = Date.now();
      if (now - lastWarned >= 60_000) {
        lastWarned = now;
        ctx.log.warn({ store: kind }, 'rate-limit store failed: limiting in this daemon alone until it answers again');
      }
      return super.consume(...args);
    }
  }
  return (s) => new Insurance({ keyPrefix: `insurance:${s.name}`, points: s.points, duration: seconds(s.durationMs) });
}
