import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { listWebhookDeliveries, setWebhook } from '../../src/webhooks/service.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/serve.js';
import { startRelay } from '../helpers/relay.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { REDIS_URL, redisPrefix } from '../limits/redis.js';
import { startReceiver } from '../webhooks/receiver.js';
import { ANSWER_WITHIN_MS, DEADLINES } from './world.js';

// The other dependencies svc waits on, made silent on purpose (sockets open, no bytes): a webhook
// receiver that accepts the connection and never answers, and Redis. Both run on either database.
describe('faults of the other dependencies', () => {
  it('a webhook receiver that accepts but never answers: each attempt ends at webhooks.timeout, and the event is delivered once it answers again', async () => {
    const receiver = await startReceiver();
    const relay = await startRelay('127.0.0.1', Number(new URL(receiver.url).port));
    const d = await startDaemon({ overrides: { ...DEADLINES, 'webhooks.timeout': 300, 'webhooks.retrySchedule': [100, 100, 100, 100, 100, 100, 100, 100, 100, 100] } });
    const ws = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
    await setWebhook(d.app, ws, { url: `http://127.0.0.1:${relay.port}/hook` });
    relay.silence();
    const a = await seedArticle(d.app, ws);
    await publishArticle(d.app, ws, a.id);
    const attempts = async () => listWebhookDeliveries(d.app, ws, { articleId: a.id });
    const end = Date.now() + 15_000;
    while ((await attempts()).length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const failed = await attempts();
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const f of failed) expect(f).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    expect(receiver.received, 'nothing reached the receiver while the link was silent').toHaveLength(0);

    relay.restore();
    const [got] = await receiver.waitFor(1);
    expect(got.body).toMatchObject({ event: 'article.published', article: { id: a.id } });
    const until = Date.now() + 5_000;
    while (!(await attempts()).some((l) => l.ok) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect((await attempts()).filter((l) => l.ok)).toHaveLength(1);
  }, 30_000);

  it.skipIf(!REDIS_URL)('Redis silent: content API answers within the command timeout (limits counted by the daemon alone) and readiness stays true', async () => {
    const redis = new URL(REDIS_URL!);
    const relay = await startRelay(redis.hostname, Number(redis.port || 6379));
    const d = await startDaemon({ jobs: false, overrides: { ...DEADLINES, 'redis.url': `redis://127.0.0.1:${relay.port}`, 'redis.keyPrefix': redisPrefix(), 'redis.commandTimeout': 300 } });
    const ws = await seedWorkspace(d.app);
    const { key } = await generateBlogKey(d.app, ws);
    const get = async () => {
      const started = performance.now();
      const res = await fetch(`${d.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, ms: performance.now() - started };
    };
    expect((await get()).status).toBe(200);
    relay.silence();
    for (let i = 0; i < 25; i++) {
      const r = await get();
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
    // Redis is not needed to serve: readiness stays 200 (the database answers).
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
    relay.restore();
    expect((await get()).status).toBe(200);
  }, 30_000);

  it('svc doctor names a silent Redis (a warning: limits per daemon) within its deadline, and a database it cannot reach (exit 1)', async () => {
    const silent = await startRelay('127.0.0.1', await freePort()); // accepts, and nothing ever answers
    silent.silence();
    const d = await startDaemon({ jobs: false });
    const env = { ...d.env, SVC_REDIS_URL: `redis://127.0.0.1:${silent.port}`, SVC_REDIS_COMMAND_TIMEOUT: '300', SVC_REDIS_CONNECT_TIMEOUT: '300' };
    const started = performance.now();
    const r = await runCli(['doctor', '--json'], { env, cwd: d.dir });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(r.code, r.stderr).toBe(0);
    const findings = r.json().findings as Array<{ level: string; check: string; detail: string }>;
    expect(findings.find((f) => f.check === 'database')).toMatchObject({ level: 'ok' });
    expect(findings.find((f) => f.check === 'redis')).toMatchObject({ level: 'warn', detail: expect.stringMatching(/unavailable/) });

    if (!d.env.SVC_DATABASE_URL) return; // a SQLite file is never "down"
    const gone = new URL(d.env.SVC_DATABASE_URL);
    gone.host = `127.0.0.1:${silent.port}`; // a database host that accepts and never answers
    const down = await runCli(['doctor'], { env: { ...d.env, SVC_DATABASE_URL: gone.toString(), SVC_DATABASE_CONNECT_TIMEOUT: '500' }, cwd: d.dir });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/database/i);
  }, 30_000);
});
