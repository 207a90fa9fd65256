import { describe, expect, it } from 'vitest';
import * as move from '../../migrations/2026-11-30-2300-move-webhook-snapshots.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { findEvent } from '../../src/webhooks/store.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

describe('migration 2026-11-30-2300-move-webhook-snapshots', () => {
  it('moves every snapshot out of webhook_events and back, in a transaction, losing no event, snapshot or delivery log line; a deleted event takes its snapshot along', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hooks' });
    for (const title of ['Compost in winter', 'Pruning roses']) await publishArticle(d.app, ws, (await seedArticle(d.app, ws, { title })).id);
    const ids: string[] = await d.app.db('webhook_events').orderBy('seq').pluck('id');
    const before = await Promise.all(ids.map((id) => findEvent(d.app.db, id)));
    expect(before.map((e) => e!.snapshot.article.title)).toEqual(['Compost in winter', 'Pruning roses']);
    await d.app.db('webhook_deliveries').insert({ id: 'dlv_kept', event_id: ids[0], workspace_id: ws.id, article_id: before[0]!.articleId, event: 'article.published', attempt: 1, url: 'http://127.0.0.1:9/hooks', ok: false, duration_ms: 3, created_at: before[0]!.createdAt });

    // knex runs each migration in a transaction, where SQLite keeps foreign keys on.
    await d.app.db.transaction((trx) => move.down(trx));
    expect(await d.app.db.schema.hasTable('webhook_event_snapshots')).toBe(false);
    const back = await d.app.db('webhook_events').orderBy('seq').select('id', 'snapshot');
    expect(back.map((r) => [r.id, JSON.parse(r.snapshot)])).toEqual(before.map((e) => [e!.id, e!.snapshot]));
    expect(await d.app.db('webhook_deliveries').pluck('id')).toEqual(['dlv_kept']);

    await d.app.db.transaction((trx) => move.up(trx));
    expect(await d.app.db.schema.hasColumn('webhook_events', 'snapshot')).toBe(false);
    expect(await Promise.all(ids.map((id) => findEvent(d.app.db, id)))).toEqual(before);
    expect(await d.app.db('webhook_deliveries').pluck('id')).toEqual(['dlv_kept']);

    await d.app.db('webhook_events').where({ id: ids[1] }).delete();
    expect(await d.app.db('webhook_event_snapshots').orderBy('event_id').pluck('event_id')).toEqual([ids[0]]);
  });
});
