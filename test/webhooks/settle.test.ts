import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { findConnector } from '../../src/connectors/store.js';
import type { Ctx } from '../../src/context.js';
import { type SentAttempt, recordAttempts } from '../../src/webhooks/attempt.js';
import { type LeaseRef, type LeaseTime, claimDue } from '../../src/webhooks/lease-store.js';
import { findEvent } from '../../src/webhooks/store.js';
import { webhookWorld } from './setup.js';

// The group commit of a batch of answers. A worker whose lease was lost (another worker took
// the event over) must record nothing for that event: no second settle, no log line of its own,
// nothing of the other worker's overwritten.
describe('recording a batch of attempts', () => {
  const T0 = '2099-01-01T12:00:00.000Z';
  const at: LeaseTime = { now: T0, freshSince: '2099-01-01T11:59:00.000Z' };
  const lease = (holderId: string, token: string): LeaseRef => ({ holderId, token, until: '2099-01-01T12:05:00.000Z' });
  const claimEvents = (db: Ctx['db'], ids: string[], l: LeaseRef, t: LeaseTime) => claimDue(db, l, t, { limit: ids.length, perConnector: ids.length, skip: [] });
  /** Record successful attempts of these events under `holderId`/`token`, answered at `now`; returns the ids recorded. */
  const recordSuccesses = async (ctx: Ctx, held: Array<{ id: string; token: string }>, holderId: string, t: LeaseTime, status: number, deliveryIds: string[]) => {
    const list: SentAttempt[] = [];
    for (const [i, h] of held.entries()) {
      const event = (await findEvent(ctx.db, h.id))!;
      list.push({
        event, connector: (await findConnector(ctx.db, event.workspaceId, 'webhook'))!, lease: { holderId, token: h.token, until: '2099-01-01T12:05:00.000Z' }, url: null, finishedAt: new Date(t.now),
        next: { status: 'delivered', attempts: event.attempts + 1 },
        outcome: { deliveryId: deliveryIds[i], ok: true, status, error: null, durationMs: 3, response: '', eventStatus: 'delivered', nextAttemptAt: null, recorded: false },
      });
    }
    await recordAttempts(ctx, list);
    return list.filter((s) => s.outcome.recorded).map((s) => s.event.id);
  };

  it('settles and logs only the events whose lease is still the caller\'s; a taken-over event keeps the other worker\'s lease, settle and log line', async () => {
    const w = await webhookWorld({ jobs: false });
    for (let i = 0; i < 4; i++) await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const db = w.d.app.db;
    const ids: string[] = await db('webhook_events').orderBy('seq').pluck('id');
    expect(ids).toHaveLength(4);
    const [kept, settledByB, heldByB, reclaimed] = ids;

    const a = lease('daemon-a', 'token-a');
    expect((await claimEvents(db, ids, a, { ...at, now: '2099-01-01T11:00:00.000Z' })).map((e) => e.id)).toEqual(ids);
    // A's lease on two of them is void (say its heartbeat went stale): B takes them over with tokens of its own.
    const b = lease('daemon-b', 'token-b');
    await db('webhook_events').whereIn('id', [settledByB, heldByB]).update({ locked_by: b.holderId, lease_token: b.token, locked_until: b.until });
    // And A itself claimed one again under a new lease (its first had run out): only the new token settles it.
    await db('webhook_events').where({ id: reclaimed }).update({ lease_token: 'token-a2' });
    // B delivers one of them and records it first.
    expect(await recordSuccesses(w.d.app, [{ id: settledByB, token: b.token }], b.holderId, at, 200, ['dlv_b'])).toEqual([settledByB]);
    const before = await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq');

    // A's answers come in afterwards, all three in one batch, under its lost token for two of them.
    const later: LeaseTime = { ...at, now: '2099-01-01T12:00:01.000Z' };
    const settled = await recordSuccesses(w.d.app, ids.map((id) => ({ id, token: a.token })), a.holderId, later, 200, ids.map((_, i) => `dlv_a${i}`));
    expect(settled).toEqual([kept]);

    expect(await db('webhook_events').where({ id: kept }).first()).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, delivered_at: later.now, locked_by: null, lease_token: null });
    expect(await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq')).toEqual(before); // not a column touched
    expect(before.map((r) => [r.status, r.attempts, r.lease_token])).toEqual([['delivered', 1, null], ['pending', 0, b.token], ['pending', 0, 'token-a2']]);
    const log = await db('webhook_deliveries').orderBy('id').select('id', 'event_id');
    expect(log).toEqual([{ id: 'dlv_a0', event_id: kept }, { id: 'dlv_b', event_id: settledByB }]);

    // The same batch again (a replay) records nothing: the settle ended A's lease.
    expect(await recordSuccesses(w.d.app, [{ id: kept, token: a.token }], a.holderId, later, 200, ['dlv_again'])).toEqual([]);
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 2 });
    expect(await db('webhook_events').where({ id: kept }).first()).toMatchObject({ attempts: 1 });
  });

  it('records nothing once the lease has run out, even with the right token', async () => {
    const w = await webhookWorld({ jobs: false });
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const db = w.d.app.db;
    const [id] = await db('webhook_events').pluck('id');
    const a = lease('daemon-a', 'token-a');
    await claimEvents(db, [id], a, { ...at, now: '2099-01-01T11:00:00.000Z' });
    const afterLease: LeaseTime = { ...at, now: '2099-01-01T12:05:00.001Z' };
    expect(await recordSuccesses(w.d.app, [{ id, token: a.token }], a.holderId, afterLease, 200, ['dlv_late'])).toEqual([]);
    expect(await db('webhook_events').where({ id }).first()).toMatchObject({ status: 'pending', attempts: 0, lease_token: a.token });
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });
});
