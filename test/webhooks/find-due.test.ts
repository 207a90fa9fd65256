import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type Db, isPostgres } from '../../src/db/connect.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { dueEvents } from '../../src/webhooks/lease-store.js';
import { disableWebhook, setWebhook } from '../../src/webhooks/service.js';
import { PG_URL } from '../helpers/env.js';
import { statementsOf } from '../helpers/plans.js';
import { poll } from '../helpers/poll.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { startReceiver } from './receiver.js';
import { type WebhookWorld, webhookWorld } from './setup.js';

const at = { now: '2099-01-01T00:00:00.000Z', freshSince: '2000-01-01T00:00:00.000Z' };

/** `n` queued events of as many articles, copies of the real one of `articleId` (as many publishes would take the suite a minute). */
async function queueCopies(db: Db, n: number, articleId: string, w: WebhookWorld): Promise<void> {
  await publishArticle(w.d.app, w.ws, articleId);
  const [{ seq, ...event }] = await db('webhook_events').where({ article_id: articleId });
  const [snapshot] = await db('webhook_event_snapshots').where({ event_id: event.id });
  expect(seq).toBeGreaterThan(0);
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({ ...event, id: `evt_queued${i + k}`, article_id: `art_queued${i + k}` }));
    await db('webhook_events').insert(rows);
    await db('webhook_event_snapshots').insert(rows.map((r) => ({ event_id: r.id, snapshot: snapshot.snapshot })));
  }
}

/** A second workspace whose webhook goes to a receiver answering 200 at once. */
async function otherReceiver(w: WebhookWorld) {
  const other = await seedWorkspace(w.d.app, { websiteUrl: 'https://other.example' });
  const quick = await startReceiver();
  await setWebhook(w.d.app, other, { url: quick.url });
  return { other, quick };
}

/** The worker, stopped when the test ends. */
function runWorker(w: WebhookWorld): void {
  const worker = startWebhookWorker(w.d.app);
  onTestFinished(() => worker.stop(AbortSignal.timeout(5_000)).then(() => undefined));
}

/** Rows of webhook_events read, from PostgreSQL's own counters (reported at most once a second). */
async function reads(db: Db): Promise<number> {
  await db.raw('select pg_stat_clear_snapshot()');
  const { rows } = await db.raw("select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_user_tables where relname = 'webhook_events'");
  return Number(rows[0].n);
}

/** reads() once steady: two readings a report interval apart agree. */
async function settledReads(db: Db): Promise<number> {
  for (let last = await reads(db); ; ) {
    await new Promise((r) => setTimeout(r, 1_100));
    const n = await reads(db);
    if (n === last) return n;
    last = n;
  }
}

// find-due: an article's first pending event for its receiver is due, its later ones wait behind it
// (decisions.md, Webhook order), and a claim reads about as many rows as it may take.
describe('find-due', () => {
  it('skips the events waiting behind their article\'s first before it counts to the limit: a later article is not starved', async () => {
    const w = await webhookWorld({ jobs: false });
    const busy = await w.article();
    for (let i = 0; i < 4; i++) await publishArticle(w.d.app, w.ws, busy.id); // one first in line, then republishes behind it
    const later = await w.article();
    await publishArticle(w.d.app, w.ws, later.id);
    const events: Array<{ id: string; article_id: string }> = await w.d.app.db('webhook_events').orderBy('seq').select('id', 'article_id');
    expect(events.filter((e) => e.article_id === busy.id).length).toBeGreaterThanOrEqual(3);

    const { events: due } = await dueEvents(w.d.app.db, at, 2, [], [], 2);
    expect(due.map((e) => e.id)).toEqual([events[0].id, events.at(-1)!.id]);
  });

  it('a receiver holding its answers, with more events queued than a claim walks, does not hold back another receiver\'s event', { timeout: 60_000 }, async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.timeout': 30_000 }, script: async () => (await released, { status: 200 }) });
    const db = w.d.app.db;
    await queueCopies(db, 400, (await w.article()).id, w);
    const { other, quick } = await otherReceiver(w);

    const worker = startWebhookWorker(w.d.app);
    await w.receiver.waitFor(4); // its slots are all taken, its answers held
    await publishArticle(w.d.app, other, (await seedArticle(w.d.app, other)).id);
    await quick.waitFor(1);
    expect(w.receiver.received.length).toBeLessThanOrEqual(4);
    release();
    await worker.stop(AbortSignal.timeout(5_000));
  });

  // The walk stops at the claim's room, and the window then keeps a receiver's part of it: the rows it cut may hide
  // another receiver's events queued behind. A claim that took its part (the receiver now at its bound) walks again
  // without it, in the same round: the poll may be long.
  it('a walk cut by one receiver\'s backlog is walked again without it in the same round: another receiver\'s event queued behind is claimed then, not at the next poll', { timeout: 60_000 }, async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.timeout': 30_000, 'webhooks.pollInterval': 3_600_000 }, script: async () => (await released, { status: 200 }) });
    const db = w.d.app.db;
    await queueCopies(db, 400, (await w.article()).id, w);
    const { other, quick } = await otherReceiver(w);
    await publishArticle(w.d.app, other, (await seedArticle(w.d.app, other)).id); // queued before the worker starts: no wake for it

    runWorker(w);
    onTestFinished(() => release()); // runs first
    // The first round: twice the first receiver's slots, and the other's event.
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 9 }]);
    await quick.waitFor(1);
  });

  // A receiver failing at once (its retries scheduled an hour on) wants more events after every answer, so a look
  // rarely finds it at its bound: its walks found only its own backlog until fewer than a walk's worth were left
  // (before the re-walk, this failed on SQLite every time; on PostgreSQL only when the wake found it wanting more).
  it('a receiver failing at once, with a backlog longer than a walk, does not hold back another receiver\'s event queued meanwhile', { timeout: 60_000 }, async () => {
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.pollInterval': 3_600_000, 'webhooks.retrySchedule': [3_600_000] }, script: () => ({ status: 500 }) });
    const db = w.d.app.db;
    await queueCopies(db, 3_000, (await w.article()).id, w);
    const { other, quick } = await otherReceiver(w);

    runWorker(w);
    await w.receiver.waitFor(100);
    await publishArticle(w.d.app, other, (await seedArticle(w.d.app, other)).id); // its wake is the only look for it
    const before = w.receiver.received.length;
    await quick.waitFor(1);
    // Measured: a handful more; 2,600 more (its backlog down to a walk) when the walks found only its own events.
    expect(w.receiver.received.length - before).toBeLessThan(256);
  });

  // A receiver whose next snapshot does not fit its part of webhooks.claimedBytes, with its slots taken but its part
  // not full, is not at its bound as claimDue counts it: each look walks its backlog alone and claims nothing.
  it('a receiver whose next event does not fit its part of the memory, with a backlog longer than a walk, does not hold back another receiver\'s event', { timeout: 60_000 }, async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // The size of its snapshots (an article as seeded), from a world of its own.
    const probe = await webhookWorld({ jobs: false });
    await publishArticle(probe.d.app, probe.ws, (await probe.article()).id);
    const [{ n: size }] = await probe.d.app.db('webhook_event_snapshots').select(probe.d.app.db.raw('octet_length(snapshot) as n'));
    // Its part (4 of 16 slots) holds 4.5 snapshots: its 4 slots fill, a fifth does not fit, and the part is not full.
    const claimedBytes = Math.floor(4.5 * Number(size)) * 4;
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.timeout': 30_000, 'webhooks.claimedBytes': claimedBytes }, script: async () => (await released, { status: 200 }) });
    const db = w.d.app.db;
    await queueCopies(db, 400, (await w.article()).id, w);
    const [{ n: copied }] = await db('webhook_event_snapshots').select(db.raw('max(octet_length(snapshot)) as n'));
    expect(Number(copied)).toBe(Number(size));
    const { other, quick } = await otherReceiver(w);

    runWorker(w);
    onTestFinished(() => release()); // runs first
    await w.receiver.waitFor(4);
    await publishArticle(w.d.app, other, (await seedArticle(w.d.app, other)).id);
    // Polls every 50 ms: a few looks are plenty to claim it.
    for (let i = 0; i < 5; i++) await once(w.d.app.events, 'webhooks.looked');
    const event = await db('webhook_events').where({ workspace_id: other.id }).first();
    expect(event.status === 'delivered' || event.locked_by !== null).toBe(true);
    await quick.waitFor(1);
    expect(w.receiver.received).toHaveLength(4);
  });

  // Events stay queued while their webhook is disabled (a 410, 5 days of failures, an operator). The walk cannot pass
  // them without reading them, but it need not look each one's article up as well: on PostgreSQL that doubled the rows
  // read per call against ranking every pending event (and 2-3x its time).
  it.skipIf(!PG_URL)('reads a disabled webhook\'s queued events once per call on PostgreSQL, not once more for their article', { timeout: 60_000 }, async () => {
    const w = await webhookWorld({ jobs: false });
    const db = w.d.app.db;
    await queueCopies(db, 3_000, (await w.article()).id, w);
    await disableWebhook(w.d.app, w.ws);
    await db.raw('analyze webhook_events');
    const before = await settledReads(db);
    expect((await dueEvents(db, at, 64, [], [], 64)).events).toEqual([]);
    const after = await poll(() => reads(db), (n) => n > before);
    // Measured: 3,001 (each queued event once) against 6,002 when each was also looked up by its article; ranking every
    // pending event read 3,001.
    expect(after - before).toBeLessThan(4_000);
  });

  it('reads a bounded number of rows with thousands of events queued, not every pending one', { timeout: 60_000 }, async () => {
    const w = await webhookWorld({ jobs: false });
    const db = w.d.app.db;
    await queueCopies(db, 3_000, (await w.article()).id, w);
    if (isPostgres(db)) {
      await db.raw('analyze webhook_events');
      const before = await settledReads(db);
      expect((await dueEvents(db, at, 64, [], [], 64)).events).toHaveLength(64);
      const after = await poll(() => reads(db), (n) => n > before);
      // Measured: 128 (64 candidates, and the first in line of each one's article); every pending event, 3,001, when find-due ranked them all.
      expect(after - before).toBeLessThan(600);
    } else {
      // SQLite: the candidates are walked through the (status, next_attempt_at) index in its order, and the LIMIT stops
      // the walk (no sort of every due event first).
      const sent = await statementsOf(db, () => dueEvents(db, at, 64, [], [], 64));
      const [find] = sent.filter((s) => /from `webhook_events` as `e`/.test(s.sql));
      expect(find.sql).toMatch(/from `webhook_events` as `e` where .* order by `e`.`next_attempt_at` asc limit \?\) as `k`/);
      const plan: Array<{ id: number; parent: number; detail: string }> = await db.raw(`explain query plan ${find.sql}`, find.bindings as never);
      const walk = plan.find((r) => r.detail.startsWith('SEARCH e USING INDEX webhook_events_status_next_attempt_at_index'));
      expect(walk, plan.map((r) => r.detail).join('\n')).toBeDefined();
      expect(plan.filter((r) => r.parent === walk!.parent && r.detail.startsWith('USE TEMP B-TREE'))).toEqual([]);
    }
  });
});
