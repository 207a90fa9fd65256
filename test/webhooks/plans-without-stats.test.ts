import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { PG_URL } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { webhookWorld } from './setup.js';

// A database minutes old has no statistics (autovacuum's first ANALYZE comes up to a minute
// later, and here never: it is turned off for the two tables), so PostgreSQL plans the worker's
// statements as if a table held a row or two. With 300 events queued at once (an archive
// republished on a new install), the worker must still read a bounded number of rows per
// delivery: find-due as an anti-join read every pending event per pending event, the claim
// read every publication of the receiver per claimed event, and the settle's kept generic plan
// scanned the whole table. Counted by PostgreSQL's own per-table counters.
describe.skipIf(!PG_URL)('the worker on a PostgreSQL database without statistics', () => {
  it('drains 300 queued events reading at most a few dozen rows of webhook_events and a few of publications per delivery', { timeout: 90_000 }, async () => {
    const N = 300;
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.timeout': 10_000 } });
    const db = w.d.app.db;
    await db.raw('alter table webhook_events set (autovacuum_enabled = false)');
    await db.raw('alter table publications set (autovacuum_enabled = false)');
    for (let i = 0; i < N; i++) await publishArticle(w.d.app, w.ws, (await w.article({ title: `Queued ${i}` })).id);

    // Backends report their counters at most once a second: wait for the numbers to show what was done.
    const counters = async () => {
      const { rows } = await db.raw(
        "select relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as read, n_tup_ins as ins, n_tup_upd as upd from pg_stat_user_tables where relname in ('webhook_events', 'publications', 'webhook_deliveries')",
      );
      await db.raw('select pg_stat_clear_snapshot()');
      return Object.fromEntries((rows as Array<{ relname: string; read: string; ins: string; upd: string }>).map((r) => [r.relname, { read: Number(r.read), ins: Number(r.ins), upd: Number(r.upd) }]));
    };
    const before = await poll(counters, (c) => c.webhook_events?.ins === N && c.publications?.ins === N);
    expect(await db('pg_class').whereIn('relname', ['webhook_events', 'publications']).pluck('reltuples')).toEqual([-1, -1]); // never analyzed

    const worker = startWebhookWorker(w.d.app);
    await poll(() => db('webhook_events').where({ status: 'delivered' }).count({ n: '*' }).first(), (r) => Number(r?.n) === N, 60_000);
    await worker.stop();
    // Claim and settle: two updates per event, and one log line each.
    const after = await poll(counters, (c) => c.webhook_events.upd - before.webhook_events.upd >= 2 * N && c.webhook_deliveries?.ins === N);

    const perDelivery = (t: string) => (after[t].read - before[t].read) / N;
    expect(w.receiver.received).toHaveLength(N);
    // Measured: about 30 and 2 now; about 1,000 and 600 before (so the bounds fail the old statements).
    expect(perDelivery('webhook_events')).toBeLessThan(60);
    expect(perDelivery('publications')).toBeLessThan(10);
  });
});
