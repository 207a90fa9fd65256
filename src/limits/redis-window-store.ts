import type { Redis } from 'ioredis';
import type { WindowStore } from './window-store.js';

// KEYS[1] the counter (a hash: c = count, e = window end, epoch ms); ARGV n, now, end, limit
// ('' for none). One script per take, so Redis runs it as one step: a take that would go over
// the limit writes nothing. The key's TTL only cleans up; the window is e.
const TAKE = `
local v = redis.call('HMGET', KEYS[1], 'c', 'e')
local n, now, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
local c, e = tonumber(v[1]) or 0, v[2]
if not e or tonumber(e) <= now then c = 0; e = ARGV[3] end
if limit and c + n > limit then return {0, c, e} end
c = c + n
redis.call('HSET', KEYS[1], 'c', c, 'e', e)
redis.call('PEXPIRE', KEYS[1], tonumber(e) - now + 1000)
return {1, c, e}`;

// ARGV n, window end: only into that window, never below zero.
const GIVE_BACK = `
local v = redis.call('HMGET', KEYS[1], 'c', 'e')
if v[2] == ARGV[2] and (tonumber(v[1]) or 0) >= tonumber(ARGV[1]) then redis.call('HINCRBY', KEYS[1], 'c', -tonumber(ARGV[1])) end
return 0`;

type Scripted = Redis & {
  svcWindowTake(key: string, n: number, now: number, end: number, limit: string): Promise<[number, number, string]>;
  svcWindowGiveBack(key: string, n: number, end: string): Promise<number>;
};

/**
 * Counters in Redis: keys `<redis.keyPrefix>limit:<key>` (keys carry the limit's name). Calls made before the client's
 * first connection wait for it (`ready`); after that, a failure goes to the insurance at once.
 */
export function redisWindowStore(redis: Redis, prefix: string, now: () => number, ready: Promise<void>): WindowStore {
  const client = redis as Scripted;
  if (!client.svcWindowTake) {
    redis.defineCommand('svcWindowTake', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('svcWindowGiveBack', { numberOfKeys: 1, lua: GIVE_BACK });
  }
  const redisKey = (key: string) => `${prefix}limit:${key}`;
  return {
    async take(key, n, windowMs, limit) {
      await ready;
      const t = now();
      const [taken, count, end] = await client.svcWindowTake(redisKey(key), n, t, t + windowMs, limit === undefined ? '' : String(limit));
      return { taken: taken === 1, count: Number(count), resetAt: Number(end) };
    },
    async giveBack(key, n, resetAt) {
      await ready;
      await client.svcWindowGiveBack(redisKey(key), n, String(resetAt));
    },
    async delete(key) {
      await ready;
      await redis.del(redisKey(key));
    },
    async close() {},
  };
}
