import { describe, expect, it } from 'vitest';
import * as leases from '../../migrations/2026-11-23-1000-add-webhook-leases.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { setWebhook } from '../../src/webhooks/service.js';

describe('migration 2026-11-23-1000-add-webhook-leases', () => {
  it('goes down and up again in a transaction without losing events or the delivery log', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hooks' });
    await publishArticle(d.app, ws, (await seedArticle(d.app, ws)).id);
    const event = await d.app.db('webhook_events').first();
    await d.app.db('webhook_deliveries').insert({ id: 'dlv_kept', event_id: event.id, workspace_id: ws.id, article_id: event.article_id, event: event.event, attempt: 1, url: 'http://127.0.0.1:9/hooks', ok: false, duration_ms: 3, created_at: event.created_at });

    // knex runs each migration in a transaction, where SQLite keeps foreign keys on.
    await d.app.db.transaction((trx) => leases.down(trx));
    expect(await d.app.db('webhook_deliveries').pluck('id')).toEqual(['dlv_kept']);
    expect(await d.app.db('webhook_events').pluck('id')).toEqual([event.id]);
    for (const column of ['lease_token', 'retry_from']) expect(await d.app.db.schema.hasColumn('webhook_events', column)).toBe(false);
    expect(await d.app.db.schema.hasColumn('daemon_heartbeats', 'kind')).toBe(false);

    await d.app.db.transaction((trx) => leases.up(trx));
    expect(await d.app.db('webhook_events').first()).toMatchObject({ id: event.id, retry_from: 0, lease_token: null });
    expect(await d.app.db('webhook_deliveries').pluck('id')).toEqual(['dlv_kept']);
  });
});
