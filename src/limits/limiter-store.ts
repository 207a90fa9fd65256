import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Ctx } from '../context.js';
import { isPostgres } from '../db/connect.js';
import { AppError } from '../errors.js';
import { pgWindowStore } from './pg-window-store.js';
import { redisWindowStore } from './redis-window-store.js';
import { type WindowStore, memoryWindowStore, withInsurance } from './window-store.js';

export type StoreKind = 'memory' | 'postgres' | 'redis';

export function chooseStoreKind(ctx: Ctx): StoreKind {
  const { store } = ctx.config.limits;
  const pg = isPostgres(ctx.db);
  if (store === 'redis' && !ctx.config.redis.url) throw new AppError('config_invalid', 500, 'limits.store is redis but redis.url (SVC_REDIS_URL) is not set');
  if (store === 'postgres' && !pg) throw new AppError('config_invalid', 500, 'limits.store is postgres but the database is SQLite');
  if (store !== 'auto') return store;
  return ctx.config.redis.url ? 'redis' : pg ? 'postgres' : 'memory';
}

/**
 * The counters of every limit, in the store chosen from the config; a shared store (PostgreSQL,
 * Redis) is insured by the same counters in this process's memory while it fails.
 */
export function openLimiterStore(ctx: Ctx): WindowStore {
  const kind = chooseStoreKind(ctx);
  const now = () => ctx.clock.now().getTime();
  if (kind === 'memory') return memoryWindowStore(now);
  let shared: WindowStore;
  let redis: Redis | undefined;
  if (kind === 'redis') {
    redis = connectRedis(ctx);
    shared = redisWindowStore(redis, ctx.config.redis.keyPrefix, now, firstConnection(redis));
  } else {
    shared = pgWindowStore(ctx.db, now);
  }
  let lastWarned = 0;
  const insured = withInsurance(shared, memoryWindowStore(now), () => {
    const t = Date.now();
    if (t - lastWarned < 60_000) return;
    lastWarned = t;
    ctx.log.warn({ store: kind }, 'rate-limit store failed: limiting in this daemon alone until it answers again');
  });
  return {
    ...insured,
    async close() {
      await shared.close();
      redis?.disconnect();
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
  // Loaded only when Redis is configured: every CLI command opens the limits, few ever use them.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
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
 * Resolves when the client connects for the first time, or after 2 s: calls made meanwhile wait,
 * so a daemon's first requests are counted in Redis rather than by the insurance alone. After
 * that a call made while Redis is unreachable goes to the insurance at once.
 */
function firstConnection(redis: Redis): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    timer.unref();
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
