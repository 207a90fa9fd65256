import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { type LeaseRef, type LeaseTime, claimEvents, settleDeliveredLogged } from '../../src/webhooks/lease-store.js';
import type { DeliveryRow } from '../../src/webhooks/store.js';
import { PG_URL } from '../helpers/env.js';
import { webhookWorld } from './setup.js';

// The PostgreSQL group commit of a batch of successes (one statement: settle and log). A worker
// whose lease was lost (another worker took the event over) must record nothing for that event:
// no second settle, no log line of its own, nothing of the other worker's overwritten.
describe.skipIf(!PG_URL)('settleDeliveredLogged (PostgreSQL one-statement settle)', () => {
  const T0 = '2099-01-01T12:00:00.000Z';
  const at: LeaseTime = { now: T0, freshSince: '2099-01-01T11:59:00.000Z' };
  const lease = (holderId: string, token: string): LeaseRef => ({ holderId, token, until: '2099-01-01T12:05:00.000Z' });
  const line = (id: string, eventId: string, attempt: number): DeliveryRow => ({
    id, eventId, workspaceId: 'ws', articleId: 'a', event: 'article.published', attempt, url: 'http://127.0.0.1/hook', ok: true, statusCode: 200,
    durationMs: 3, error: null, responseExcerpt: null, createdAt: T0,
  });

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
    expect(await settleDeliveredLogged(db, [{ id: settledByB, token: b.token }], b.holderId, at, 200, [line('dlv_b', settledByB, 1)])).toEqual([settledByB]);
    const before = await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq');

    // A's answers come in afterwards, all three in one batch, under its lost token for two of them.
    const later: LeaseTime = { ...at, now: '2099-01-01T12:00:01.000Z' };
    const settled = await settleDeliveredLogged(db, ids.map((id) => ({ id, token: a.token })), a.holderId, later, 200, ids.map((id, i) => line(`dlv_a${i}`, id, 1)));
    expect(settled).toEqual([kept]);

    expect(await db('webhook_events').where({ id: kept }).first()).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, delivered_at: later.now, locked_by: null, lease_token: null });
    expect(await db('webhook_events').whereIn('id', [settledByB, heldByB, reclaimed]).orderBy('seq')).toEqual(before); // not a column touched
    expect(before.map((r) => [r.status, r.attempts, r.lease_token])).toEqual([['delivered', 1, null], ['pending', 0, b.token], ['pending', 0, 'token-a2']]);
    const log = await db('webhook_deliveries').orderBy('id').select('id', 'event_id');
    expect(log).toEqual([{ id: 'dlv_a0', event_id: kept }, { id: 'dlv_b', event_id: settledByB }]);

    // The same batch again (a replay) records nothing: the settle ended A's lease.
    expect(await settleDeliveredLogged(db, [{ id: kept, token: a.token }], a.holderId, later, 200, [line('dlv_again', kept, 2)])).toEqual([]);
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
    expect(await settleDeliveredLogged(db, [{ id, token: a.token }], a.holderId, afterLease, 200, [line('dlv_late', id, 1)])).toEqual([]);
    expect(await db('webhook_events').where({ id }).first()).toMatchObject({ status: 'pending', attempts: 0, lease_token: a.token });
    expect(await db('webhook_deliveries').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });
});
