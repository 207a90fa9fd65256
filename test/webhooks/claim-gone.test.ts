import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/connect.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { leaseTime } from '../../src/webhooks/lease.js';
import { claimEvents } from '../../src/webhooks/lease-store.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

describe('a claim whose events are deleted before their snapshots are read', () => {
  it('takes none of them, and throws nothing (the webhook was removed meanwhile: nothing to send or give back)', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hooks' });
    await publishArticle(d.app, ws, (await seedArticle(d.app, ws)).id);
    const ids: string[] = await d.app.db('webhook_events').pluck('id');
    expect(ids).toHaveLength(1);

    // The reader's snapshot read runs only once the webhook is deleted, with its events and their snapshots.
    const db = d.app.db;
    const reader = ((table: string) => {
      const q = db(table);
      const run = q.then.bind(q);
      return Object.assign(q, { then: (ok: never, no: never) => db('connectors').where({ workspace_id: ws.id, kind: 'webhook' }).delete().then(() => run(ok, no)) });
    }) as unknown as Queryable;
    const lease = { holderId: 'daemon_test', token: 'tok_test', until: new Date(Date.now() + 60_000).toISOString() };
    expect(await claimEvents(db, ids, lease, leaseTime(d.app), reader)).toEqual([]);
    expect(Number((await db('webhook_events').count({ n: '*' }).first())!.n)).toBe(0);
    expect(Number((await db('webhook_event_snapshots').count({ n: '*' }).first())!.n)).toBe(0);
  });
});
