import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { type TestDaemon, startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc } from '../mcp/helpers.js';
import { hidden } from '../oauth/flow.js';
import { REDIS_URL, redisPrefix } from './redis.js';

// Decisions, second round: limits are per key for the whole service, across every daemon
// sharing the database (or Redis). Three daemons on one PostgreSQL database, real HTTP.

async function cluster(overrides: Record<string, unknown> = {}): Promise<TestDaemon[]> {
  const { dir, env } = await freshEnv();
  const daemons: TestDaemon[] = [];
  for (let i = 0; i < 3; i++) daemons.push(await startDaemonOn(env, dir, overrides, false));
  return daemons;
}

async function blogKey(d: TestDaemon) {
  const { key } = await generateBlogKey(d.app, await seedWorkspace(d.app));
  return (on: TestDaemon) => fetch(`${on.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${key}` } });
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

function contentLimitAcrossDaemons(store: 'postgres' | 'redis', overrides: () => Record<string, unknown>) {
  it(`one blog key spread over three daemons gets exactly the limit through, in order or all at once (${store})`, async () => {
    const ds = await cluster({ 'content.rateLimitPerMinute': 50, ...overrides() });
    for (const d of ds) expect(d.app.limits.storeKind).toBe(store);
    const get = await blogKey(ds[0]);
    // In turn: every lease a daemon takes is spent, so exactly the limit passes.
    const statuses: number[] = [];
    for (let i = 0; i < 90; i++) statuses.push((await get(ds[i % 3])).status);
    expect(statuses.filter((s) => s === 200).length).toBe(50);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const refused = await get(ds[1]);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // All at once on a second key: never more than the limit; what a daemon leased and did not
    // spend is the documented slack below it (leaseSize - 1 per daemon).
    const burst = await blogKey(ds[0]);
    const parallel = await Promise.all(Array.from({ length: 150 }, (_, i) => burst(ds[i % 3])));
    const served = parallel.filter((r) => r.status === 200).length;
    expect(parallel.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(served).toBeLessThanOrEqual(50);
    expect(served).toBeGreaterThanOrEqual(50 - 9 * 3);
  });
}

describe.skipIf(!PG_URL)('limits across three daemons on one PostgreSQL database', () => {
  contentLimitAcrossDaemons('postgres', () => ({}));

  it('one API key: its MCP calls, batches included, are capped in total across the daemons', async () => {
    const ds = await cluster({ 'mcp.rateLimitPerMinute': 12 });
    const ws = await seedWorkspace(ds[0].app);
    const admin = await seedUser(ds[0].app, ws);
    const newKey = async () => `Bearer ${(await createApiKey(ds[0].app, { workspaceId: ws.id, userId: admin.id, name: 'k', scopes: ['read'] })).key}`;
    const auth = { Authorization: await newKey() };
    const batch = (from: number) => [ping(from), ping(from + 1), ping(from + 2)];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await rpc(ds[i % 3], batch(i * 10), auth)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await rpc(ds[2], ping(99), auth)).status).toBe(429);

    // Parallel batches and single calls over the three daemons: never more than 12 calls served.
    const other = { Authorization: await newKey() };
    const posts = Array.from({ length: 18 }, (_, i) => (i % 2 ? ping(i) : batch(i * 10)));
    const answers = await Promise.all(posts.map(async (body, i) => ({ status: (await rpc(ds[i % 3], body, other)).status, calls: Array.isArray(body) ? body.length : 1 })));
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    const served = answers.filter((a) => a.status === 200).reduce((n, a) => n + a.calls, 0);
    expect(served).toBeLessThanOrEqual(12);
    // Every POST spends one call before its body is read, a batch the rest once it is: when all 18 arrive
    // before any batch is read, the 12 calls go to 12 POSTs and the batches among them are refused their
    // rest, so the singles among those 12 (at least 3 of the 9) are what is served.
    expect(served).toBeGreaterThanOrEqual(3);
  });

  it('the sign-in throttle is shared: parallel guesses on three daemons check at most 5 passwords', async () => {
    const ds = await cluster({ 'server.trustProxy': true });
    const user = await seedUser(ds[0].app, await seedWorkspace(ds[0].app));
    const formAt = async (d: TestDaemon, address: string) => {
      const res = await fetch(`${d.url}/login`, { headers: { 'X-Forwarded-For': address } });
      const csrf = hidden(await res.text(), 'csrf')!;
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__login_csrf='))!.split(';')[0];
      return (password: string) =>
        fetch(`${d.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, 'X-Forwarded-For': address },
          body: new URLSearchParams({ csrf, email: user.email, password }).toString(),
        });
    };
    const forms = await Promise.all(ds.map((d) => formAt(d, '203.0.113.77')));
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => forms[i % 3]('wrong password')));
    expect(answers.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect(answers.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    for (const post of forms) expect((await post(user.password)).status).toBe(429);
    expect((await (await formAt(ds[2], '198.51.100.9'))(user.password)).status).toBe(303);
  });

  it('two daemons starting at once on a fresh database both limit through the migrated table', async () => {
    const { dir, env } = await freshEnv();
    const [a, b] = await Promise.all([startDaemonOn(env, dir, { 'content.rateLimitPerMinute': 4, 'limits.contentLeaseSize': 1 }, false), startDaemonOn(env, dir, { 'content.rateLimitPerMinute': 4, 'limits.contentLeaseSize': 1 }, false)]);
    const get = await blogKey(a);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(i % 2 ? b : a)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});

describe.skipIf(!PG_URL || !REDIS_URL)('limits across three daemons in Redis', () => {
  contentLimitAcrossDaemons('redis', () => ({ 'redis.url': REDIS_URL, 'redis.keyPrefix': redisPrefix() }));
});

describe.skipIf(!REDIS_URL)('limits in Redis, shared by daemons whatever their database', () => {
  it('one key counted once across two daemons with databases of their own (SQLite too)', async () => {
    const overrides = { 'redis.url': REDIS_URL, 'redis.keyPrefix': redisPrefix(), 'content.rateLimitPerMinute': 20 };
    const [a, b] = [await startDaemon({ jobs: false, overrides }), await startDaemon({ jobs: false, overrides })];
    expect(a.app.limits.storeKind).toBe('redis');
    let served = 0;
    const refusals: string[] = [];
    for (let i = 0; i < 40; i++) {
      try {
        await (i % 2 ? a : b).app.limits.content('same key hash');
        served++;
      } catch (err) {
        refusals.push((err as { code: string }).code);
      }
    }
    expect(served).toBe(20);
    expect(new Set(refusals)).toEqual(new Set(['rate_limited']));
  });
});
