import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { leaseMs } from '../../src/webhooks/lease.js';
import { listWebhookDeliveries } from '../../src/webhooks/service.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { tempDir } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { FAST, webhookWorld } from './setup.js';
import { drained } from './view.js';

const BEATS = { 'webhooks.heartbeatInterval': 100, 'webhooks.heartbeatStaleAfter': 1_000 };

/** A receiver script that holds the first request until release() (or the test ends). */
function holdFirst() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  return { release, script: async (_req: unknown, i: number) => (i === 0 ? (await released, { status: 200 }) : { status: 200 }) };
}

const eventRow = (w: Awaited<ReturnType<typeof webhookWorld>>, id: string) => w.d.app.db('webhook_events').where({ id }).first();

describe('lease ownership', () => {
  it('an attempt that outlives its lease records nothing: the daemon that took the event over settles it, counted once', async () => {
    // The receiver holds both attempts; the first one (daemon A's) is answered first, while B holds the lease.
    const gates = [holdFirst(), holdFirst()];
    const w = await webhookWorld({ overrides: { ...BEATS, 'webhooks.timeout': 2_000 }, script: (req, i) => gates[i]?.script(req, 0) ?? { status: 200 } });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(1); // daemon A holds the lease and waits on the receiver

    // Daemon B on the same database, whose clock is past A's lease: it takes the event over.
    const clock = new TestClock();
    clock.advance(leaseMs(w.d.app) + 1_000);
    const b = await startDaemonOn(w.d.env, w.d.dir, { ...FAST, ...BEATS, 'webhooks.timeout': 2_000 }, true, clock);
    const [, second] = await w.receiver.waitFor(2);
    expect(second.body.eventId).toBe(first.body.eventId); // the same event again, a new delivery
    expect(second.body.deliveryId).not.toBe(first.body.deliveryId);

    const attempted = once(w.d.app.events, 'webhooks.attempted');
    gates[0].release(); // A's attempt ends, after its lease: it must not settle B's lease
    expect(await attempted).toEqual([{ eventId: first.body.eventId, deliveryId: first.body.deliveryId, recorded: false }]);
    expect(await eventRow(w, first.body.eventId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await w.d.app.db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });

    gates[1].release();
    await drained(b.app);
    expect(await eventRow(w, first.body.eventId)).toMatchObject({ status: 'delivered', attempts: 1, locked_by: null, lease_token: null });
    const log = await listWebhookDeliveries(w.d.app, w.ws, { articleId: a.id });
    expect(log.map((d) => [d.id, d.attempt, d.ok])).toEqual([[second.body.deliveryId, 1, true]]);
  });

  it('worker stop(deadline): gives the stalled attempt up, releases its lease and records nothing; the next worker takes it at once', async () => {
    const held = holdFirst();
    const w = await webhookWorld({ overrides: BEATS, jobs: false, script: held.script });
    const worker = startWebhookWorker(w.d.app);
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(1);
    expect((await eventRow(w, first.body.eventId)).lease_token).not.toBeNull();

    const attempted: unknown[] = [];
    w.d.app.events.on('webhooks.attempted', (e: unknown) => attempted.push(e));
    const started = Date.now();
    expect(await worker.stop(AbortSignal.timeout(100))).toBe(false);
    // Given up, not an attempt whose lease was lost: nothing recorded, counted or warned of.
    expect(attempted).toEqual([]);
    expect((await w.d.app.metrics.webhookDeliveries.get()).values.filter((v) => v.value > 0)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await eventRow(w, first.body.eventId)).toMatchObject({ status: 'pending', attempts: 0, locked_by: null, locked_until: null, lease_token: null });
    expect(await w.d.app.db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });
    expect(await w.d.app.db('daemon_heartbeats').count({ n: '*' }).first()).toMatchObject({ n: 0 });

    const next = startWebhookWorker(w.d.app);
    const [, again] = await w.receiver.waitFor(2);
    expect(again.body.eventId).toBe(first.body.eventId);
    await drained(w.d.app);
    expect(await next.stop(AbortSignal.timeout(1_000))).toBe(true); // nothing in flight: finished
    held.release();
  });

  it('a worker stopped at once (a wake already queued) leaves no heartbeat behind and claims nothing', async () => {
    const w = await webhookWorld({ overrides: BEATS, jobs: false });
    await publishArticle(w.d.app, w.ws, (await w.article()).id); // a due event
    const worker = startWebhookWorker(w.d.app);
    w.d.app.events.emit('webhooks.enqueued', { workspaceId: w.ws.id }); // a wake runs after stop() returns
    expect(await worker.stop()).toBe(true);
    // Observed, not slept on: the next worker delivers the event. The stopped worker's queued wake
    // (an immediate, queued before the next worker existed) has run by then, and whatever it
    // wrote first (a heartbeat of a holder nobody stops) would still be there once the next
    // worker stopped and removed its own.
    const next = startWebhookWorker(w.d.app);
    const [delivered] = await w.receiver.waitFor(1);
    await drained(w.d.app);
    expect(await next.stop()).toBe(true);
    expect(await w.d.app.db('daemon_heartbeats').count({ n: '*' }).first()).toMatchObject({ n: 0 });
    expect(await w.d.app.db('webhook_events').whereNotNull('lease_token').count({ n: '*' }).first()).toMatchObject({ n: 0 });
    expect(w.receiver.received).toHaveLength(1);
    expect((await listWebhookDeliveries(w.d.app, w.ws, {})).map((d) => [d.eventId, d.attempt])).toEqual([[delivered.body.eventId, 1]]);
  });

  it('worker stop(deadline) resolves true when the attempts in flight finish in time', async () => {
    const w = await webhookWorld({ overrides: BEATS, jobs: false, script: () => ({ status: 200, delayMs: 150 }) });
    const worker = startWebhookWorker(w.d.app);
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const [first] = await w.receiver.waitFor(1);
    expect(await worker.stop(AbortSignal.timeout(5_000))).toBe(true);
    expect(await eventRow(w, first.body.eventId)).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});

describe('svc webhook enable and redeliver', () => {
  it('enable sends the queued events at once, whatever their retry time', async () => {
    let gone = true;
    const w = await webhookWorld({ overrides: { 'webhooks.retrySchedule': ['1h'] }, script: () => ({ status: gone ? 410 : 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [first] = await w.receiver.waitFor(1);
    const queued = await poll(() => eventRow(w, first.body.eventId), (row) => row.attempts >= 1);
    expect(queued.status).toBe('pending');
    expect(Date.parse(queued.next_attempt_at) - Date.now()).toBeGreaterThan(50 * 60_000); // an hour away

    gone = false;
    const enable = await runCli(['webhook', 'enable', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(enable.code).toBe(0);
    const [, second] = await w.receiver.waitFor(2);
    expect(second.body.eventId).toBe(first.body.eventId);
    await drained(w.d.app);
    const log = await listWebhookDeliveries(w.d.app, w.ws, { articleId: a.id });
    expect(log.map((d) => [d.attempt, d.statusCode])).toEqual([[2, 200], [1, 410]]);
  });

  it('a redelivery is logged with its real attempt number and keeps the article in order', async () => {
    const w = await webhookWorld({ script: () => ({ status: 200 }) });
    const cli = (...args: string[]) => runCli([...args, '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [published] = await w.receiver.waitFor(1);
    await drained(w.d.app);

    const again = await cli('webhook', 'redeliver', published.body.eventId, '--json');
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ ok: true, attempt: 2, eventId: published.body.eventId });
    const human = await cli('webhook', 'redeliver', published.body.eventId);
    expect(human.stdout).toMatch(/^Redelivered article\.published evt_\w+: HTTP 200 in \d+ ms \(delivery dlv_\w+, attempt 3\)\n$/);
    const log = await listWebhookDeliveries(w.d.app, w.ws, { articleId: a.id });
    expect(log.map((d) => d.attempt)).toEqual([3, 2, 1]);
    expect((await cli('webhook', 'deliveries')).stdout).toMatch(/#3 +200/);

    // Once a later event of the article was delivered, the old one would put an older state back.
    await publishArticle(w.d.app, w.ws, a.id);
    const [, , , updated] = await w.receiver.waitFor(4);
    await drained(w.d.app);
    const stale = await cli('webhook', 'redeliver', published.body.eventId, '--json');
    expect(stale.code).toBe(1);
    expect(stale.json().error).toEqual({
      code: 'superseded',
      message: `A later event of this article (article.updated ${updated.body.eventId}) was delivered after this one; sending this one again would put an older state back on the receiver`,
    });
    expect(w.receiver.received).toHaveLength(4);
  });

  it('a redelivery does not jump ahead of an earlier event of the article still waiting', async () => {
    const w = await webhookWorld({ overrides: { 'webhooks.retrySchedule': ['1h'] }, script: (req) => ({ status: req.body?.event === 'article.published' ? 500 : 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [published] = await w.receiver.waitFor(1);
    await publishArticle(w.d.app, w.ws, a.id); // article.updated, queued behind the failing publish
    const updated = await w.d.app.db('webhook_events').where({ article_id: a.id, event: 'article.updated' }).first();
    const res = await runCli(['webhook', 'redeliver', updated.id, '-w', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(res.code).toBe(1);
    expect(res.json().error).toEqual({
      code: 'out_of_order',
      message: `An earlier event of this article (article.published ${published.body.eventId}) has not been delivered yet; events of an article go out in order`,
    });
    expect(w.receiver.received).toHaveLength(1);
  });
});

describe('heartbeat settings', () => {
  it('refuses a staleness shorter than two heartbeat intervals, naming the setting', () => {
    expect(() => loadConfig({ env: { SVC_WEBHOOKS_HEARTBEAT_INTERVAL: '5s', SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: '8s' }, cwd: tempDir() })).toThrow(
      'SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: must be at least twice webhooks.heartbeatInterval (a live holder must not look gone after one late beat)',
    );
  });
});
