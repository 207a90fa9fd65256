import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { type Relay, startRelay } from '../helpers/relay.js';
import { until } from '../helpers/serve.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { ANSWER_WITHIN_MS, DEADLINES } from './world.js';

// A pooled connection goes silent while the freshness read runs on it (a NAT that forgot one
// flow). The requests waiting for that read are not failed for it: after a quarter of
// content.timeout the read is made again on another connection, which answers them. (Without
// that, the first request would wait for the deadline and answer 503.) The stuck read then times
// out, which ends its connection.
const CONTENT_TIMEOUT = 2000;

/**
 * The relay link of the pooled connection `d`'s next query takes: tarn hands out the connection
 * released last, so of two taken and given back, the one given back second comes next. The other
 * stays open and idle, so the read made again is a query, not also a connect through the relay.
 */
async function nextPooledLink(db: App['db'], relay: Relay): Promise<number> {
  const [spare, next] = (await Promise.all([0, 1].map(() => db.client.acquireConnection()))) as pg.Client[];
  const port = (next as unknown as { connection: { stream: { localPort: number } } }).connection.stream.localPort;
  await db.client.releaseConnection(spare);
  await db.client.releaseConnection(next);
  const link = relay.connections.find((c) => c.open && c.port === port);
  expect(link, 'the pooled connection goes through the relay').toBeDefined();
  return link!.index;
}

async function daemonsBehindRelay(overrides: Record<string, unknown>) {
  const { dir, env } = await freshEnv();
  const direct = new URL(env.SVC_DATABASE_URL);
  const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
  const viaRelay = new URL(direct);
  viaRelay.host = `127.0.0.1:${relay.port}`;
  const other = await startDaemonOn(env, dir, DEADLINES, false);
  // No jobs and limits in memory: the content API is the only user of d's pool here.
  const d = await startDaemonOn({ ...env, SVC_DATABASE_URL: viaRelay.toString() }, dir, { ...DEADLINES, 'limits.store': 'memory', ...overrides }, false);
  const ws = await seedWorkspace(other.app);
  const { key } = await generateBlogKey(other.app, ws);
  const publish = async (title: string) => {
    const a = await seedArticle(other.app, ws, { title });
    await publishArticle(other.app, await getWorkspace(other.app, ws.id), a.id);
    return a;
  };
  const get = async () => {
    const started = performance.now();
    const res = await fetch(`${d.url}/api/v1/content/articles`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.json(), ms: performance.now() - started };
  };
  return { relay, other, d, publish, get };
}

describe.skipIf(!PG_URL)('a freshness read stuck on a silent connection', () => {
  it('holds no request past a quarter of the deadline plus a read: every answer 200 and fresh; the silent connection is then ended', async () => {
    // A longer content deadline than the other fault tests' (800 ms), for a machine running the
    // whole suite; the stuck read still outlives it (queryTimeout).
    const { relay, d, publish, get } = await daemonsBehindRelay({ 'content.timeout': CONTENT_TIMEOUT, 'database.queryTimeout': CONTENT_TIMEOUT * 1.2 });
    await publish('Before');
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);

    const silenced = await nextPooledLink(d.app.db, relay);
    relay.silence(silenced);
    const after = await publish('After the silence');

    // The first request's read goes on the silent connection; the others arrive while it hangs.
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => new Promise((r) => setTimeout(r, i * 40)).then(get)));
    expect(answers[0].ms, 'the first read was stuck on the silent connection').toBeGreaterThanOrEqual(CONTENT_TIMEOUT / 4 - 1);
    for (const a of answers) {
      expect(a.status, JSON.stringify(answers.map((x) => [x.status, Math.round(x.ms)]))).toBe(200);
      expect(a.body.data.articles.map((x: { id: string }) => x.id), 'never older than the publish that returned before').toContain(after.id);
      expect(a.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }

    // The stuck read times out (database.queryTimeout), which ends its connection.
    await until(async () => relay.connections[silenced].open === false, 15_000, 'the silent connection ended');
    expect((await get()).status).toBe(200);
    relay.restore();
  }, 30_000);

  it('leaves nothing connected when the daemon stops while a read is stuck', async () => {
    const { relay, d, get } = await daemonsBehindRelay({});
    expect((await get()).status).toBe(200);
    const silenced = await nextPooledLink(d.app.db, relay);
    // A read stuck on it when the stop begins: the goodbye is never answered, so it is cut.
    relay.silence(silenced);
    const stuck = get().then((res) => res.status, () => 'connection closed');
    await new Promise((r) => setTimeout(r, 50));
    await d.stop();
    // Answered, or its connection closed by the stop (the test server does not wait for requests in flight).
    expect([200, 503, 'connection closed']).toContain(await stuck);
    expect(relay.connections.filter((c) => c.open).length, 'every connection of the stopped daemon was ended').toBe(0);
    relay.restore();
  }, 30_000);
});
