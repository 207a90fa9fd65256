import { describe, expect, it } from 'vitest';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { listWebhookDeliveries } from '../../src/webhooks/service.js';
import { runCli } from '../helpers/cli.js';
import { webhookWorld } from './setup.js';
import { workerLooks } from '../helpers/ticks.js';

/** Wait until cond() holds (fails after 15 s). */
async function until<T>(cond: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const eventRow = (w: Awaited<ReturnType<typeof webhookWorld>>, id: string) => w.d.app.db('webhook_events').where({ id }).first();


/** The delivery log of an article once it holds `n` attempts (newest first). */
const attemptsOf = (w: Awaited<ReturnType<typeof webhookWorld>>, articleId: string, n: number) =>
  until(async () => {
    const l = await listWebhookDeliveries(w.d.app, w.ws, { articleId });
    return l.length === n && l;
  }, `${n} attempts`);

describe('webhook delivery engine', () => {
  it('retries on the configured schedule with a stable event id and a new delivery id per attempt, then succeeds', async () => {
    const w = await webhookWorld({ script: (_req, i) => ({ status: i < 2 ? 500 : 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const got = await w.receiver.waitFor(3);
    expect(new Set(got.map((r) => r.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['x-service-delivery'])).size).toBe(3);
    for (const r of got) expect(r.body.deliveryId).toBe(r.headers['x-service-delivery']);
    const row = await until(async () => {
      const e = await eventRow(w, got[0].body.eventId);
      return e?.status === 'delivered' && e;
    }, 'delivered');
    expect(row.attempts).toBe(3);
    const log = await listWebhookDeliveries(w.d.app, w.ws, { articleId: a.id });
    expect(log.map((d) => [d.attempt, d.statusCode, d.ok])).toEqual([[3, 200, true], [2, 500, false], [1, 500, false]]);
    expect(log[2].error).toBe('HTTP 500');
  });

  it('marks the event failed after the last retry', async () => {
    const w = await webhookWorld({ script: () => ({ status: 503, body: { down: true } }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(3); // first try + 2 retries ([50, 100])
    const row = await until(async () => {
      const e = await eventRow(w, first.body.eventId);
      return e?.status === 'failed' && e;
    }, 'failed');
    expect(row).toMatchObject({ attempts: 3, last_status: 503 });
    expect(await workerLooks(w.d.app)).toEqual([{ claimed: 0 }, { claimed: 0 }]);
    expect(w.receiver.received).toHaveLength(3);
    const failed = await runCli(['webhook', 'deliveries', '--failed', '--json', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(failed.json()).toHaveLength(3);
    expect(failed.json()[0]).toMatchObject({ statusCode: 503, ok: false, responseExcerpt: '{"down":true}', event: 'article.published', articleId: a.id });
  });

  it('counts a slow receiver as a timeout and retries', async () => {
    const w = await webhookWorld({ overrides: { 'webhooks.timeout': 200 }, script: (_req, i) => ({ status: 200, delayMs: i === 0 ? 1000 : 0 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(2);
    const log = await attemptsOf(w, a.id, 2);
    expect(log[1]).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 200 ms' });
    expect(log[0]).toMatchObject({ ok: true, statusCode: 200 });
  });

  it('does not follow redirects: a 3xx is a failure', async () => {
    const w = await webhookWorld({ script: (_req, i) => (i === 0 ? { status: 302, headers: { Location: 'http://127.0.0.1:1/elsewhere' } } : { status: 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(2);
    const log = await attemptsOf(w, a.id, 2);
    expect(log[1]).toMatchObject({ ok: false, statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
  });

  it('honours a Retry-After on 429 that is longer than the scheduled retry', async () => {
    const w = await webhookWorld({ script: () => ({ status: 429, headers: { 'Retry-After': '120' } }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(1);
    const row = await until(async () => {
      const e = await eventRow(w, first.body.eventId);
      return e?.attempts === 1 && e;
    }, 'first attempt recorded');
    expect(row.status).toBe('pending');
    expect(Date.parse(row.next_attempt_at) - Date.parse(row.updated_at)).toBeGreaterThanOrEqual(120_000);
  });

  it('disables the webhook on 410 Gone and says so in svc webhook show', async () => {
    const w = await webhookWorld({ script: () => ({ status: 410 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    const c = await until(async () => {
      const x = await findConnector(w.d.app.db, w.ws.id, 'webhook');
      return x && !x.enabled && x;
    }, 'disabled connector');
    expect(c.disabledReason).toContain('410 Gone');
    const show = await runCli(['webhook', 'show', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(show.stdout).toMatch(/DISABLED: The receiver answered 410 Gone/);
    await workerLooks(w.d.app);
    expect(w.receiver.received).toHaveLength(1); // no further attempts while disabled
  });

  it('disables a webhook whose every delivery failed for webhooks.disableAfter', async () => {
    const w = await webhookWorld({ overrides: { 'webhooks.disableAfter': 1, 'webhooks.retrySchedule': [50, 50, 50] }, script: () => ({ status: 500 }) });
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const c = await until(async () => {
      const x = await findConnector(w.d.app.db, w.ws.id, 'webhook');
      return x && !x.enabled && x;
    }, 'disabled connector');
    expect(c.disabledReason).toMatch(/^Every delivery failed since .*: the webhook was disabled/);
    const doctor = await runCli(['doctor', '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(doctor.code).toBe(1);
    expect(JSON.stringify(doctor.json())).toContain('Every delivery failed since');
  });

  it('keeps the order of one article: a later event waits while an earlier one is slow', async () => {
    const w = await webhookWorld({
      overrides: { 'webhooks.concurrency': 4 },
      // The first delivery is answered only once a second request has arrived.
      script: async (_req, i) => {
        if (i === 0) await w.receiver.waitFor(2);
        return { status: 200 };
      },
    });
    const a = await w.article();
    const b = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1); // the first delivery of a is being held by the receiver
    await publishArticle(w.d.app, w.ws, a.id);
    await publishArticle(w.d.app, w.ws, b.id);
    const got = await w.receiver.waitFor(3);
    // Another article is not held up by a; a's update comes only after its publish was answered.
    expect(got.map((r) => [r.body.article.id, r.body.event])).toEqual([
      [a.id, 'article.published'],
      [b.id, 'article.published'],
      [a.id, 'article.updated'],
    ]);
  });

  it('redelivers an event by event id or delivery id', async () => {
    const w = await webhookWorld({ script: () => ({ status: 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(1);
    await until(async () => (await eventRow(w, first.body.eventId))?.status === 'delivered', 'delivered');
    const byEvent = await runCli(['webhook', 'redeliver', first.body.eventId, '-w', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(byEvent.code).toBe(0);
    expect(byEvent.json()).toMatchObject({ ok: true, status: 200, eventId: first.body.eventId });
    const byDelivery = await runCli(['webhook', 'redeliver', first.body.deliveryId, '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(byDelivery.code).toBe(0);
    const got = await w.receiver.waitFor(3);
    expect(got.map((r) => r.headers['x-service-event-id'])).toEqual([first.body.eventId, first.body.eventId, first.body.eventId]);
    expect(new Set(got.map((r) => r.body.deliveryId)).size).toBe(3);
    const missing = await runCli(['webhook', 'redeliver', 'evt_nope', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Webhook event or delivery "evt_nope" not found');
  });
});
