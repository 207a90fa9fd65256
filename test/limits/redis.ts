import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The Redis the limits tests use: SVC_TEST_REDIS_URL, default redis://127.0.0.1:6379 when one
 * answers there. Tests needing it skip without one, except under SVC_TEST_REQUIRE_REDIS=1 (CI).
 */
async function findRedis(): Promise<string | undefined> {
  const url = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    if (process.env.SVC_TEST_REQUIRE_REDIS === '1') throw new Error(`SVC_TEST_REQUIRE_REDIS=1 but no Redis answers at ${url}`);
    return undefined;
  } finally {
    client.disconnect();
  }
}

export const REDIS_URL = await findRedis();

/** A key prefix of its own per test, so parallel test files never share counters. */
export const redisPrefix = () => `svc-test-${randomBytes(6).toString('hex')}:`;
