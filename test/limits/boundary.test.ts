import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { TestClock } from '../helpers/clock.js';
import { type TestDaemon, startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc } from '../mcp/helpers.js';
import { REDIS_URL, redisPrefix } from './redis.js';

// Issue 22: refused MCP batches timed at a window's end. A refusal used to take its points and
// give them back; a give-back landing just after the window rolled over started the next window
// below zero (1,720 calls in one window of a 120 limit). A refusal now changes no count.

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ping(from + i));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * The attack on daemons sharing one store and one clock: fill a window, bring the clock to one
 * second or so before its end, then keep refused 100-call batches in flight across the boundary
 * from every daemon, and finish the new window with single calls. Returns the calls accepted
 * after the first window was full (all within the next window).
 */
async function boundaryAttack(ds: TestDaemon[], clock: TestClock): Promise<number> {
  const ws = await seedWorkspace(ds[0].app);
  const admin = await seedUser(ds[0].app, ws);
  const auth = { Authorization: `Bearer ${(await createApiKey(ds[0].app, { workspaceId: ws.id, userId: admin.id, name: 'k', scopes: ['read'] })).key}` };
  const accepted = async (d: TestDaemon, body: unknown) => {
    const res = await rpc(d, body, auth);
    expect([200, 429]).toContain(res.status);
    return { calls: res.status === 200 ? (Array.isArray(body) ? body.length : 1) : 0, retry: Number(res.headers.get('retry-after')) };
  };
  for (let i = 0; i < 6; i++) expect((await accepted(ds[i % ds.length], batch(i * 20, 20))).calls).toBe(20);
  const full = await accepted(ds[0], ping(1000));
  expect(full.calls).toBe(0);
  // The daemons' clock to just before the window's end (a clock the store ignores stays put,
  // and the attack then waits for the window's end in real time, as the reviewer did).
  clock.advance(58_000);
  const { retry } = await accepted(ds[0], ping(1001));
  await sleep(retry * 1000 - 1500);
  let total = 0;
  let id = 2000;
  const until = Date.now() + 3000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      while (Date.now() < until) {
        const { calls } = await accepted(ds[lane % ds.length], batch((id += 100), 100));
        total += calls;
      }
    }),
  );
  for (let i = 0; ; i++) {
    const one = await accepted(ds[i % ds.length], ping((id += 1)));
    if (!one.calls) break;
    total += 1;
    if (total > 2000) break;
  }
  console.log(`boundary attack: ${total} calls accepted in the window after the full one`);
  return total;
}

/** The store's steps at a window's end, on the daemon's injected clock. */
async function atTheBoundary(d: TestDaemon, clock: TestClock) {
  const { limits } = d.app;
  const refusedFor = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: { status?: number; details?: { retryAfterSeconds?: number } }) => e,
    );
    expect(err?.status).toBe(429);
    return err!.details!.retryAfterSeconds!;
  };
  const key = `principal-${Math.random()}`;
  await limits.mcpCalls('warm-up', 1); // the store connected (Redis)
  // The injected clock runs with real time: the window opened between `before` and `after`, which
  // on a loaded machine may be more than the 100 ms the checks below straddle.
  const before = clock.now().getTime();
  await limits.mcpCalls(key, 100);
  const after = clock.now().getTime();
  await refusedFor(limits.mcpCalls(key, 100));
  await limits.mcpCalls(key, 20); // the refused batch counted nothing
  const retry = await refusedFor(limits.mcpCalls(key, 1));
  expect(retry).toBe(60);
  clock.advance(before + 59_900 - clock.now().getTime());
  await refusedFor(limits.mcpCalls(key, 1));
  clock.advance(Math.max(100, after + 60_000 - clock.now().getTime()));
  await limits.mcpCalls(key, 120); // a new window, starting from nothing
  await refusedFor(limits.mcpCalls(key, 1));

  // Sign-in: the success of an attempt counted in one window gives nothing back to the next.
  const address = `203.0.113.${Math.floor(Math.random() * 200)}`;
  const early = await limits.signInAttempt('early@example.com', address);
  clock.advance(15 * 60_000);
  for (let i = 0; i < 30; i++) await limits.signInAttempt(`user${i % 10}-${i}@example.com`, address);
  await early.succeeded();
  await refusedFor(limits.signInAttempt('late@example.com', address));
  // Within its window, a success does give its point back.
  clock.advance(15 * 60_000);
  for (let i = 0; i < 29; i++) await limits.signInAttempt(`user${i}@example.com`, address);
  await (await limits.signInAttempt('good@example.com', address)).succeeded();
  await limits.signInAttempt('one-more@example.com', address);
  await refusedFor(limits.signInAttempt('late@example.com', address));
}

describe('each store at the window boundary, on the injected clock', () => {
  it('memory', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock, overrides: { 'limits.store': 'memory' } });
    await atTheBoundary(d, clock);
    await d.stop(); // PostgreSQL connections are shared with every other test running
  });

  it.skipIf(!PG_URL)('PostgreSQL', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock });
    expect(d.app.limits.storeKind).toBe('postgres');
    await atTheBoundary(d, clock);
    await d.stop(); // PostgreSQL connections are shared with every other test running
  });

  it.skipIf(!REDIS_URL)('Redis', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock, overrides: { 'redis.url': REDIS_URL, 'redis.keyPrefix': redisPrefix() } });
    expect(d.app.limits.storeKind).toBe('redis');
    await atTheBoundary(d, clock);
    await d.stop(); // PostgreSQL connections are shared with every other test running
  });
});

describe('the MCP limit at the window boundary: at most the limit per window, on every store', () => {
  it('memory store (one daemon, SQLite)', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock, overrides: { 'limits.store': 'memory' } });
    expect(d.app.limits.storeKind).toBe('memory');
    expect(await boundaryAttack([d], clock)).toBeLessThanOrEqual(120);
    await d.stop();
  }, 90_000);

  it.skipIf(!PG_URL)('two daemons on one PostgreSQL database', async () => {
    const clock = new TestClock();
    const { dir, env } = await freshEnv();
    const ds = [await startDaemonOn(env, dir, {}, false, clock), await startDaemonOn(env, dir, {}, false, clock)];
    expect(ds[0].app.limits.storeKind).toBe('postgres');
    expect(await boundaryAttack(ds, clock)).toBeLessThanOrEqual(120);
    for (const d of ds) await d.stop();
  }, 90_000);

  it.skipIf(!REDIS_URL)('two daemons sharing Redis', async () => {
    const clock = new TestClock();
    const overrides = { 'redis.url': REDIS_URL, 'redis.keyPrefix': redisPrefix() };
    // Two daemons on one PostgreSQL database when there is one (one SQLite file serves one daemon).
    const { dir, env } = await freshEnv();
    const ds = [await startDaemonOn(env, dir, overrides, false, clock)];
    if (PG_URL) ds.push(await startDaemonOn(env, dir, overrides, false, clock));
    expect(ds[0].app.limits.storeKind).toBe('redis');
    expect(await boundaryAttack(ds, clock)).toBeLessThanOrEqual(120);
    for (const d of ds) await d.stop();
  }, 90_000);
});

describe.skipIf(!PG_URL)('sign-in: the per-address limit is checked first', () => {
  it('an address over its limit is refused without writing a counter per attempt', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'limits.signIn.perAddress': 3 } });
    const rows = async () => Number((await d.app.db('rate_limits').where('key', 'like', 'sign-in-%').count({ n: '*' }))[0].n);
    for (let i = 0; i < 3; i++) await d.app.limits.signInAttempt(`user${i}@example.com`, '203.0.113.9');
    const before = await rows();
    for (let i = 3; i < 20; i++) await expect(d.app.limits.signInAttempt(`user${i}@example.com`, '203.0.113.9')).rejects.toMatchObject({ code: 'too_many_attempts' });
    expect(await rows()).toBe(before);
    await d.stop();
  });
});
