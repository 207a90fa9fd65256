import { describe, expect, it } from 'vitest';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { type SentAttempt, recordAttempts } from '../../src/webhooks/attempt.js';
import { type ClaimedEvent, type LeaseRef, claimEvents, settle } from '../../src/webhooks/lease-store.js';
import { PG_URL } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { webhookWorld } from './setup.js';

// The group commit of a batch of answers (one settle statement and the log lines, one transaction), on the suite's engine.
// A worker whose lease was lost (another worker took the event over) must record nothing for that event:
// no second settle, no log line of its own, nothing of the other worker's overwritten.
describe('recordAttempts: one settle for a batch, each event only under its own lease', () => {
  const T0 = '2099-01-01T12:00:00.000Z';
  const lease = (holderId: string, token: string): LeaseRef => ({ holderId, token, until: '2099-01-01T12:05:00.000Z' });
  const claimAt = { now: '2099-01-01T11:00:00.000Z', freshSince: '2099-01-01T10:59:00.000Z' };

  async function world(n: number) {
    const w = await webhookWorld({ jobs: false });
    for (let i = 0; i < n; i++) await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const db = w.d.app.db;
    const ids: string[] = await db('webhook_events').orderBy('seq').pluck('id');
    const connector = (await findConnector(db, w.ws.id, 'webhook'))!;
    /** An attempt answered at `at`: 200, or a failure to retry. */
    const sent = (event: ClaimedEvent, l: LeaseRef, deliveryId: string, at: string, ok = true): SentAttempt => ({
      event,
      connector,
      lease: l,
      url: null,
      finishedAt: new Date(at),
      outcome: { deliveryId, ok, status: ok ? 200 : 500, error: ok ? null : 'HTTP 500', durationMs: 3, response: '', eventStatus: ok ? 'delivered' : 'pending', nextAttemptAt: ok ? null : '2099-01-01T13:00:00.000Z', recorded: false },
      next: ok ? { status: 'delivered', attempts: event.attempts + 1 } : { status: 'pending', attempts: event.attempts + 1, nextAttemptAt: '2099-01-01T13:00:00.000Z' },
    });
    return { w, db, ids, sent };
  }

  it('settles and logs only the events whose lease is still the caller\'s; a taken-over event keeps the other worker\'s lease, settle and log line', async () => {
    const { db, ids, sent, w } = await world(5);
    expect(ids).toHaveLength(5);
    const [kept, settledByB, heldByB, reclaimed, failed] = ids;
    const a = lease('daemon-a', 'token-a');
    const claimed = await claimEvents(db, ids, a, claimAt);
    expect(claimed.map((e) => e.id)).toEqual(ids);
    // A's lease on two of them is void (say its heartbeat went stale): B takes them over with tokens of its own.
    const b = lease('daemon-b', 'token-b');
    await db('webhook_events').whereIn('id', [settledByB, heldByB]).update({ locked_by: b.holderId, lease_token: b.token, locked_until: b.until });
    // And A itself claimed one again under a new lease (its first had run out): only the new token settles it.
    await db('webhook_events').where({ id: reclaimed }).update({ lease_token: 'token-a2' });
    // B delivers one of them and records it first.
    await recordAttempts(w.d.app, [sent(claimed[1], b, 'dlv_b', T0)]);
    const before = await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq');

    // A's answers come in afterwards, all in one batch, under its lost token for three of them; one is a failure to retry.
    const later = '2099-01-01T12:00:01.000Z';
    const batch = claimed.map((e, i) => sent(e, a, `dlv_a${i}`, later, e.id !== failed));
    await recordAttempts(w.d.app, batch);
    expect(batch.map((s) => s.outcome.recorded)).toEqual([true, false, false, false, true]);

    expect(await db('webhook_events').where({ id: kept }).first()).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null, delivered_at: later, updated_at: later, locked_by: null, lease_token: null });
    expect(await db('webhook_events').where({ id: failed }).first()).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', next_attempt_at: '2099-01-01T13:00:00.000Z', delivered_at: null, locked_by: null, lease_token: null });
    expect(await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq')).toEqual(before); // not a column touched
    expect(before.map((r) => [r.status, r.attempts, r.lease_token])).toEqual([['delivered', 1, null], ['pending', 0, b.token], ['pending', 0, 'token-a2']]);
    const log = await db('webhook_deliveries').orderBy('id').select('id', 'event_id', 'ok');
    expect(log.map((r) => [r.id, r.event_id, Boolean(r.ok)])).toEqual([['dlv_a0', kept, true], ['dlv_a4', failed, false], ['dlv_b', settledByB, true]]);

    // The same batch again (a replay) records nothing: the settle ended A's lease.
    const again = [sent(claimed[0], a, 'dlv_again', later)];
    await recordAttempts(w.d.app, again);
    expect(again[0].outcome.recorded).toBe(false);
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 3 });
    expect(await db('webhook_events').where({ id: kept }).first()).toMatchObject({ attempts: 1 });
  });

  it('records nothing once the lease has run out, even with the right token', async () => {
    const { db, ids, sent, w } = await world(1);
    const a = lease('daemon-a', 'token-a');
    const [event] = await claimEvents(db, ids, a, claimAt);
    const late = [sent(event, a, 'dlv_late', '2099-01-01T12:05:00.001Z')];
    await recordAttempts(w.d.app, late);
    expect(late[0].outcome.recorded).toBe(false);
    expect(await db('webhook_events').where({ id: ids[0] }).first()).toMatchObject({ status: 'pending', attempts: 0, lease_token: a.token });
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });

  it('an event twice in one batch is settled once, by the first attempt that holds its lease, and only that attempt is recorded and logged', async () => {
    const { db, ids, sent, w } = await world(2);
    const a = lease('daemon-a', 'token-a');
    const [stale, twice] = await claimEvents(db, ids, a, claimAt);
    // `stale`: an attempt under a lease it no longer holds, then one under the lease on the row.
    // `twice`: a failure and a success, both under the lease on the row.
    const batch = [sent(stale, lease('daemon-a', 'token-gone'), 'dlv_gone', T0), sent(stale, a, 'dlv_held', T0), sent(twice, a, 'dlv_fail', T0, false), sent(twice, a, 'dlv_ok', T0)];
    await recordAttempts(w.d.app, batch);
    expect(batch.map((s) => s.outcome.recorded)).toEqual([false, true, true, false]);
    expect(await db('webhook_events').where({ id: stale.id }).first()).toMatchObject({ status: 'delivered', attempts: 1, lease_token: null });
    expect(await db('webhook_events').where({ id: twice.id }).first()).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, delivered_at: null, lease_token: null });
    expect(await db('webhook_deliveries').orderBy('id').pluck('id')).toEqual(['dlv_fail', 'dlv_held']);
  });

  // PostgreSQL tries a transaction again after a deadlock (db/tx.ts): what a failed try marked recorded must not outlive it.
  it.skipIf(!PG_URL)('PostgreSQL: a batch tried again after a deadlock counts as recorded only what the try that committed recorded', async () => {
    const { db, ids, sent, w } = await world(1);
    const a = lease('daemon-a', 'token-a');
    const [event] = await claimEvents(db, ids, a, claimAt);
    const b = lease('daemon-b', 'token-b');
    let takeover: Promise<number> | undefined;
    const batch = [sent(event, a, 'dlv_a', T0)];
    await recordAttempts(w.d.app, batch, async () => {
      if (takeover) return;
      // Another worker takes the event over: it waits for this try's row lock and has the row once the try rolls back.
      takeover = db('webhook_events').where({ id: event.id }).update({ locked_by: b.holderId, lease_token: b.token, locked_until: b.until }).then(Number);
      await poll(async () => Number((await db.raw("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n), (n) => n === 1);
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    expect(await takeover).toBe(1);
    expect(batch[0].outcome.recorded).toBe(false);
    expect(await db('webhook_events').where({ id: event.id }).first()).toMatchObject({ status: 'pending', attempts: 0, lease_token: b.token });
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });

  it('settles a batch larger than one statement holds', async () => {
    const { db, ids } = await world(1);
    const a = lease('daemon-a', 'token-a');
    await claimEvents(db, ids, a, claimAt);
    // 1,000 rows fit one statement: the real event is the 1,001st, in the second.
    const others = Array.from({ length: 1_000 }, (_, i) => ({ id: `evt_none${i}`, lease: a, at: T0, status: 'delivered' as const, attempts: 1, lastStatus: 200, lastError: null }));
    expect((await settle(db, [...others, { ...others[0], id: ids[0] }])).map((s) => s.id)).toEqual([ids[0]]);
    expect(await db('webhook_events').where({ id: ids[0] }).first()).toMatchObject({ status: 'delivered', attempts: 1, delivered_at: T0 });
  });
});
