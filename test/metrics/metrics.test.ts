import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config/load.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { contentFixture } from '../content-api/fixture.js';
import { spawnCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, freshEnv, tempDir } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { startRelay } from '../helpers/relay.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect, rpc, toolCall } from '../mcp/helpers.js';
import { webhookWorld } from '../webhooks/setup.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample of the exposition text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('/metrics', () => {
  it('counts requests by route pattern and status, cache hits and misses, 429s, MCP tool calls, and reads the webhook queue and credits from the database', async () => {
    const clock = TestClock.midMonth();
    const f = await contentFixture({ jobs: false, clock, overrides: { 'content.rateLimitPerMinute': 4, 'metrics.listen': '127.0.0.1:0' } });
    const metricsAt = (await f.d.http.metricsAddress)!;
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsAt.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    // No worker runs (jobs: false): the event of this publish stays pending.
    await setWebhook(f.d.app, f.ws, { url: 'http://127.0.0.1:9/hook' });
    const a = await f.publish({ slug: 'secret-launch-plans' });

    // The publish warmed page 0 of 10 (and the sitemap) already: a page of 5 is a miss, then a hit.
    expect((await f.api('/articles?limit=5')).status).toBe(200);
    expect((await f.api('/articles?limit=5')).status).toBe(200);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(200);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(200);
    expect((await f.api('/articles')).status).toBe(429); // 4 a minute
    expect((await f.api('/articles', { key: 'svc_blog_wrong' })).status).toBe(401);
    expect((await fetch(`${f.d.url}/no/such/page-with-a-slug`)).status).toBe(404);

    const user = await seedUser(f.d.app, f.ws, 'admin');
    const { key: apiKey } = await createApiKey(f.d.app, { workspaceId: f.ws.id, userId: user.id, name: 'agent', scopes: ['read', 'content'] });
    const agent = await connect(f.d, apiKey);
    expect((await agent.call('get_site_profile')).isError).toBeFalsy();
    expect((await agent.call('create_article', { title: 'Counted', bodyMarkdown: '## A\n\nWords.' })).isError).toBeFalsy();
    expect((await agent.call('publish_article', { slug: 'counted' })).isError).toBe(true); // no publish scope
    expect((await agent.call('get_article', { slug: 'no-such-article' })).isError).toBe(true);

    clock.advance(90_000);
    const text = await scrape();
    const requests = (route: string, status: string, method = 'GET') => sample(text, 'svc_http_requests_total', { method, route, status });
    expect(requests('/api/v1/content/articles', '200')).toBe(2);
    expect(requests('/api/v1/content/articles/:slug', '200')).toBe(2);
    expect(requests('/api/v1/content/articles', '429')).toBe(1);
    expect(requests('/api/v1/content/articles', '401')).toBe(1);
    expect(requests('unmatched', '404')).toBe(1);
    expect(requests('/api/mcp', '200', 'POST')).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/content/articles' })).toBe(4);
    expect(sample(text, 'svc_content_cache_requests_total', { kind: 'page', result: 'miss' })).toBe(1);
    expect(sample(text, 'svc_content_cache_requests_total', { kind: 'page', result: 'hit' })).toBe(1);
    expect(sample(text, 'svc_content_cache_requests_total', { kind: 'article', result: 'miss' })).toBe(1);
    expect(sample(text, 'svc_content_cache_requests_total', { kind: 'article', result: 'hit' })).toBe(1);
    expect(sample(text, 'svc_rate_limited_total', { route: '/api/v1/content/articles' })).toBe(1);
    expect(sample(text, 'svc_mcp_tool_calls_total', { tool: 'get_site_profile', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'svc_mcp_tool_calls_total', { tool: 'create_article', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'svc_mcp_tool_calls_total', { tool: 'publish_article', outcome: 'refused' })).toBe(1);
    expect(sample(text, 'svc_mcp_tool_calls_total', { tool: 'get_article', outcome: 'error' })).toBe(1);
    expect(sample(text, 'svc_webhook_queue_depth')).toBe(1);
    expect(sample(text, 'svc_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'svc_credits_used', { kind: 'articles' })).toBe(1);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // Labels hold patterns only: no slug, key, workspace or URL of any request.
    for (const secret of [a.slug, f.key, apiKey, f.ws.id, 'svc_blog_wrong', 'page-with-a-slug', 'no-such-article']) expect(text).not.toContain(secret);
  });

  it('counts 429s of the MCP call budget and the queue gauge follows the database', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'mcp.rateLimitPerMinute': 1, 'metrics.token': TOKEN } });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'admin');
    const { key } = await createApiKey(d.app, { workspaceId: ws.id, userId: user.id, name: 'agent', scopes: ['read'] });
    const headers = { Authorization: `Bearer ${key}` };
    expect((await rpc(d, toolCall('get_site_profile'), headers)).status).toBe(200);
    expect((await rpc(d, toolCall('get_site_profile'), headers)).status).toBe(429);
    const scrape = async () => (await fetch(`${d.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    let text = await scrape();
    expect(sample(text, 'svc_rate_limited_total', { route: '/api/mcp' })).toBe(1);
    expect(sample(text, 'svc_webhook_queue_depth')).toBe(0);
    expect(sample(text, 'svc_webhook_oldest_pending_age_seconds')).toBe(0);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hook' });
    await publishArticle(d.app, await getWorkspace(d.app, ws.id), (await seedArticle(d.app, ws)).id);
    await publishArticle(d.app, await getWorkspace(d.app, ws.id), (await seedArticle(d.app, ws)).id);
    text = await scrape();
    expect(sample(text, 'svc_webhook_queue_depth')).toBe(2);
    expect(sample(text, 'svc_credits_used', { kind: 'articles' })).toBe(0); // seeded without credits
  });

  it('the queue gauges count events another process wrote (read from the database at scrape time)', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'metrics.token': TOKEN } });
    const ws = await seedWorkspace(d.app);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hook' });
    const a = await seedArticle(d.app, ws);
    const scrape = async () => (await fetch(`${d.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    expect(sample(await scrape(), 'svc_webhook_queue_depth')).toBe(0);
    // The CLI, a separate process, publishes: its event is pending (the receiver refuses connections).
    const r = await spawnCli(['articles', 'publish', a.slug, '--workspace', ws.id], { env: d.env, cwd: d.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(sample(await scrape(), 'svc_webhook_queue_depth')).toBe(1);
  }, 60_000);

  it('a scrape whose database figures cannot be read still answers, with NaN gauges and the error counted in that same scrape', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'metrics.token': TOKEN } });
    const scrape = async () => {
      const res = await fetch(`${d.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    expect(sample(await scrape(), 'svc_metrics_scrape_errors_total')).toBe(0);
    await d.app.db.schema.renameTable('webhook_events', 'webhook_events_away');
    try {
      const text = await scrape();
      expect(sample(text, 'svc_webhook_queue_depth')).toBeNaN();
      expect(sample(text, 'svc_metrics_scrape_errors_total')).toBe(1);
    } finally {
      await d.app.db.schema.renameTable('webhook_events_away', 'webhook_events');
    }
    const text = await scrape();
    expect(sample(text, 'svc_webhook_queue_depth')).toBe(0);
    expect(sample(text, 'svc_metrics_scrape_errors_total')).toBe(1);
  });

  it.skipIf(!PG_URL)('a PostgreSQL that stops answering (connection kept, no reset) still leaves the scrape answered, with NaN gauges', async () => {
    const { dir, env } = await freshEnv();
    const pg = new URL(env.SVC_DATABASE_URL!);
    const relay = await startRelay(pg.hostname, Number(pg.port || 5432));
    pg.host = `127.0.0.1:${relay.port}`;
    const d = await startDaemonOn({ ...env, SVC_DATABASE_URL: pg.toString() }, dir, { 'metrics.token': TOKEN }, false);
    const scrape = async () => (await fetch(`${d.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    expect(sample(await scrape(), 'svc_webhook_queue_depth')).toBe(0);
    relay.silence();
    // Before: the scrape waited for the database as long as the scraper did (Prometheus: up 0, no process figures).
    const text = await Promise.race([scrape(), new Promise<string>((resolve) => setTimeout(resolve, 20_000, 'no answer').unref())]);
    expect(sample(text, 'svc_webhook_queue_depth')).toBeNaN();
    expect(sample(text, 'svc_metrics_scrape_errors_total')).toBe(1);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    relay.cut(); // the stuck queries fail, so the daemon stops
    await d.stop();
  }, 60_000);

  it('counts webhook deliveries by outcome', async () => {
    const w = await webhookWorld({ script: (_, i) => ({ status: i === 0 ? 500 : 200 }), overrides: { 'metrics.token': TOKEN } });
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    await w.receiver.waitFor(2);
    const text = await poll(
      async () => (await fetch(`${w.d.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text(),
      // Both in one scrape: the queue's depth is read before the counters (metrics.render), so a
      // scrape taken while the delivery was being recorded shows it delivered and still pending.
      (t) => sample(t, 'svc_webhook_deliveries_total', { outcome: 'delivered' }) === 1 && sample(t, 'svc_webhook_queue_depth') === 0,
    );
    expect(sample(text, 'svc_webhook_deliveries_total', { outcome: 'retry' })).toBe(1);
    expect(sample(text, 'svc_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(sample(text, 'svc_webhook_queue_depth')).toBe(0);
  });
});

describe('/metrics protection', () => {
  it('is not served on the public port without metrics.token', async () => {
    const d = await startDaemon({ jobs: false });
    expect(await d.http.metricsAddress).toBeNull();
    const res = await fetch(`${d.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('svc_http_requests_total');
  });

  it('with metrics.token: refused without the token or with another, served with it, on both ports', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'metrics.token': TOKEN, 'metrics.listen': '127.0.0.1:0' } });
    const side = `http://127.0.0.1:${(await d.http.metricsAddress)!.port}/metrics`;
    for (const url of [`${d.url}/metrics`, side]) {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, `Bearer ${TOKEN}x`]) {
        const res = await fetch(url, { headers: authorization ? { Authorization: authorization } : {} });
        expect(res.status, `${url} ${authorization}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect((await res.json()).error.code).toBe('unauthorized');
      }
      const ok = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('cache-control')).toBe('no-store');
      expect(await ok.text()).toContain('# TYPE svc_http_requests_total counter');
      const post = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(post.status).toBe(405);
      expect((await post.json()).error.code).toBe('method_not_allowed');
    }
    const other = await fetch(side.replace('/metrics', '/healthz'));
    expect(other.status).toBe(404);
  });

  it('refuses a malformed listen address and a short token', () => {
    const dir = tempDir();
    for (const listen of ['9464', 'localhost', '127.0.0.1:99999', 'http://127.0.0.1:9464', '::1:9464']) {
      expect(() => loadConfig({ env: { SVC_METRICS_LISTEN: listen }, cwd: dir }), listen).toThrow(/SVC_METRICS_LISTEN.*host:port/s);
    }
    for (const listen of ['127.0.0.1:9464', '[::1]:9464', '0.0.0.0:0', 'metrics.internal:9464', '']) {
      expect(loadConfig({ env: { SVC_METRICS_LISTEN: listen }, cwd: dir }).metrics.listen).toBe(listen);
    }
    expect(() => loadConfig({ env: { SVC_METRICS_TOKEN: 'short' }, cwd: dir })).toThrow(/SVC_METRICS_TOKEN.*16 characters/s);
  });
});
