import { Redis } from 'ioredis';
import type { Ctx } from '../context.js';
import { toAppError, unavailable } from '../errors.js';
import { within } from '../lib/deadline.js';

export interface DependencyFinding {
  level: 'ok' | 'warn' | 'fail';
  check: string;
  detail: string;
}

/**
 * `svc doctor`'s view of the dependencies (here beside the Redis client of the limits), each asked once within its deadline: the database (a
 * round trip within server.readinessTimeout, as /healthz does) and, when limits are counted in
 * Redis, Redis (a PING within redis.commandTimeout; without it each daemon limits on its own).
 */
export async function dependencyHealth(ctx: Ctx, limitStore: string, { migrationsApplied = true } = {}): Promise<DependencyFinding[]> {
  const { database, server } = ctx.config;
  const findings: DependencyFinding[] = [];
  const started = performance.now();
  try {
    await within(ctx.db.raw('select 1'), server.readinessTimeout, () => unavailable('database', `no answer within ${server.readinessTimeout} ms (server.readinessTimeout)`, { failure: 'silent' }));
    findings.push({ level: 'ok', check: 'database', detail: `${database.client} reachable (${Math.round(performance.now() - started)} ms)${migrationsApplied ? ', migrations applied' : ''}` });
  } catch (err) {
    const failure = toAppError(err).details?.failure; // the class, as every surface names it (docs/deployment.md)
    findings.push({ level: 'fail', check: 'database', detail: `${database.client} unavailable${failure ? ` (${failure})` : ''}: ${(err as Error).message}` });
  }
  if (limitStore === 'redis' && ctx.config.redis.url) findings.push(await redisHealth(ctx));
  return findings;
}

async function redisHealth(ctx: Ctx): Promise<DependencyFinding> {
  const { connectTimeout, commandTimeout } = ctx.config.redis;
  const redis = new Redis(ctx.config.redis.url!, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout, commandTimeout });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return { level: 'ok', check: 'redis', detail: 'reachable (rate limits shared by every daemon)' };
  } catch (err) {
    return { level: 'warn', check: 'redis', detail: `unavailable (${(err as Error).message}): each daemon limits on its own until it answers` };
  } finally {
    redis.disconnect();
  }
}
