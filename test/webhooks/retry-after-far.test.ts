import { describe, expect, it } from 'vitest';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { recordAttempts, sendAttempt } from '../../src/webhooks/attempt.js';
import { type LeaseRef, claimEvents } from '../../src/webhooks/lease-store.js';
import { PG_URL } from '../helpers/env.js';
import { webhookWorld } from './setup.js';

// A receiver's Retry-After is honoured when longer than the scheduled retry, however long. Times are
// ISO strings compared as strings: a year past 9999 is written "+010000-..." (which sorts before every
// 4-digit year, so the event was due at once), and a delay past JavaScript's last date is no date at all
// (toISOString threw: the answer was never recorded, the event sent again each time its lease ran out).
describe(`a Retry-After beyond year 9999 (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  const lease: LeaseRef = { holderId: 'daemon-a', token: 'token-a', until: '2099-01-01T12:05:00.000Z' };
  const claimAt = { now: '2099-01-01T11:00:00.000Z', freshSince: '2099-01-01T10:59:00.000Z' };

  for (const [what, seconds] of [['past year 9999', '300000000000'], ['past the last date JavaScript holds', '9000000000000']]) {
    it(`${what}: recorded, the retry due at the latest time svc writes (not at once)`, async () => {
      const w = await webhookWorld({ jobs: false, script: () => ({ status: 429, headers: { 'Retry-After': seconds } }) });
      await publishArticle(w.d.app, w.ws, (await w.article()).id);
      const db = w.d.app.db;
      const ids: string[] = await db('webhook_events').pluck('id');
      const [event] = await claimEvents(db, ids, lease, claimAt);
      const connector = (await findConnector(db, w.ws.id, 'webhook'))!;
      const sent = await sendAttempt(w.d.app, event, connector, lease, undefined);
      expect(sent.outcome).toMatchObject({ ok: false, status: 429, eventStatus: 'pending', nextAttemptAt: '9999-12-31T23:59:59.999Z' });
      await recordAttempts(w.d.app, [sent]);
      expect(sent.outcome.recorded).toBe(true);
      const row = await db('webhook_events').where({ id: event.id }).first();
      expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: 429, next_attempt_at: '9999-12-31T23:59:59.999Z' });
      expect(row.next_attempt_at > row.updated_at).toBe(true); // not due
    });
  }
});
