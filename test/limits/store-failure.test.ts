import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { type TestDaemon, startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';
import { freePort } from '../helpers/serve.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc } from '../mcp/helpers.js';
import { PageClient, register } from '../oauth/flow.js';
import { REDIS_URL, redisPrefix } from './redis.js';

// The documented choice: a failing limit store never turns into 500s. Each daemon then limits
// on its own (the insurance: the same limits in its memory) until the store answers again.

async function everySurface(d: TestDaemon) {
  const ws = await seedWorkspace(d.app);
  const user = await seedUser(d.app, ws);
  const { key } = await generateBlogKey(d.app, ws);
  const apiKey = (await createApiKey(d.app, { workspaceId: ws.id, userId: user.id, name: 'k', scopes: ['read'] })).key;
  return {
    content: async () => (await fetch(`${d.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${key}` } })).status,
    mcp: async () => (await rpc(d, { jsonrpc: '2.0', id: 1, method: 'ping' }, { Authorization: `Bearer ${apiKey}` })).status,
    signIn: async () => (await new PageClient(d.url).signIn(user.email, user.password)).status,
    register: async () => (await register(d)).status,
  };
}

const LIMITS = { 'content.rateLimitPerMinute': 3, 'mcp.rateLimitPerMinute': 3 };

async function stillLimited(s: Awaited<ReturnType<typeof everySurface>>) {
  const content = [];
  const mcp = [];
  for (let i = 0; i < 4; i++) content.push(await s.content());
  for (let i = 0; i < 4; i++) mcp.push(await s.mcp());
  expect(content).toEqual([200, 200, 200, 429]);
  expect(mcp).toEqual([200, 200, 200, 429]);
  expect(await s.signIn()).toBe(303);
  expect(await s.register()).toBe(201);
}

describe('a failing limit store', () => {
  it('Redis unreachable: every surface answers, limited by the daemon alone', async () => {
    const d = await startDaemon({ jobs: false, overrides: { ...LIMITS, 'redis.url': `redis://127.0.0.1:${await freePort()}` } });
    expect(d.app.limits.storeKind).toBe('redis');
    await stillLimited(await everySurface(d));
  });

  it.skipIf(!REDIS_URL)('Redis connected but silent: every surface still answers, limited by the daemon alone, and the daemon stops', async () => {
    const redis = new URL(REDIS_URL!);
    const relay = await startRelay(redis.hostname, Number(redis.port || 6379));
    const d = await startDaemon({ jobs: false, overrides: { ...LIMITS, 'redis.url': `redis://127.0.0.1:${relay.port}`, 'redis.keyPrefix': redisPrefix() } });
    const s = await everySurface(d);
    expect(await s.content()).toBe(200); // connected and counting in Redis
    relay.silence();
    // Before: each call waited for an answer that never came (until the client gave up).
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 15 s')), 15_000).unref())]);
    const content = async () => {
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push(await s.content());
      return statuses;
    };
    const statuses = await within(content());
    expect(statuses).toContain(429); // the insurance counts from nothing, so where it refuses varies
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    expect(await within(Promise.all([s.mcp(), s.signIn(), s.register()]))).toEqual([200, 303, 201]);
    expect(await within(d.stop().then(() => 'stopped'))).toBe('stopped');
  }, 60_000);

  it.skipIf(!PG_URL)('PostgreSQL limiter table unavailable: every surface answers, limited by the daemon alone; shared again once it is back', async () => {
    const { dir, env } = await freshEnv();
    const d = await startDaemonOn(env, dir, { ...LIMITS, 'limits.contentLeaseSize': 1 }, false);
    expect(d.app.limits.storeKind).toBe('postgres');
    const s = await everySurface(d);
    await d.app.db.raw('ALTER TABLE rate_limits RENAME TO rate_limits_away');
    try {
      await stillLimited(s);
    } finally {
      await d.app.db.raw('ALTER TABLE rate_limits_away RENAME TO rate_limits');
    }
    // Back: a second daemon's requests are counted with the first one's again.
    // (Leases of one request each, so the two daemons' turns are visible one by one.)
    const other = await startDaemonOn(env, dir, { ...LIMITS, 'limits.contentLeaseSize': 1 }, false);
    const { key } = await generateBlogKey(d.app, await seedWorkspace(d.app));
    const get = (on: TestDaemon) => fetch(`${on.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect([await get(d), await get(other), await get(d), await get(other)]).toEqual([200, 200, 200, 429]);
  });
});
