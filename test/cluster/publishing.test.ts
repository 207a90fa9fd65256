import { beforeAll, describe, expect, it } from 'vitest';
import { scheduleArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { type Cluster, clusterSupported, startCluster } from '../helpers/cluster.js';
import { poll } from '../helpers/poll.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { type TestReceiver, startReceiver } from '../webhooks/receiver.js';
import { FAST } from '../webhooks/setup.js';
import { arrivalSeqs, drained, inOrder, onWebhook, receiverView } from '../webhooks/view.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Three daemons with their jobs (scheduler, webhook workers, heartbeats) on one PostgreSQL.
describe.skipIf(!clusterSupported)('publishing with three daemons on one PostgreSQL', () => {
  let c: Cluster;
  let receiver: TestReceiver;
  beforeAll(async () => {
    c = await startCluster({ overrides: { ...FAST, 'scheduler.interval': 100, 'webhooks.timeout': 15_000 } });
    // Unpublishes are answered late: republishes on other daemons meet them before, during and after.
    receiver = await startReceiver((req) => ({ status: 200, delayMs: req.body?.event === 'article.unpublished' ? 100 : 5 }));
  });

  async function site() {
    const [a] = c.daemons;
    const ws = await seedWorkspace(a.app);
    await setWebhook(a.app, ws, { url: receiver.url });
    return getWorkspace(a.app, ws.id);
  }

  it('publishes each of many scheduled articles exactly once when every daemon’s clock passes their time (one webhook event each)', async () => {
    const [a] = c.daemons;
    const ws = await site();
    const articles = await Promise.all(Array.from({ length: 40 }, (_, i) => seedArticle(a.app, ws, { title: `Timed ${i}` })));
    const at = new Date(Date.now() + 3_600_000).toISOString();
    for (const art of articles) await scheduleArticle(a.app, ws, art.id, at);
    await new Promise((r) => setTimeout(r, 300)); // several ticks on every daemon: nothing is due yet
    expect(Number((await a.app.db('articles').where({ workspace_id: ws.id, status: 'published' }).count({ n: '*' }).first())?.n)).toBe(0);

    c.advance(3_600_000 + 1_000);
    const published = await poll(
      async () => Number((await a.app.db('articles').where({ workspace_id: ws.id, status: 'published' }).count({ n: '*' }).first())?.n),
      (n) => n === articles.length,
    );
    expect(published).toBe(articles.length);
    await drained(a.app);
    const events: Array<{ article_id: string; event: string }> = await a.app.db('webhook_events').where({ workspace_id: ws.id }).select('article_id', 'event');
    expect(events.filter((e) => e.event === 'article.published')).toHaveLength(articles.length);
    expect(events).toHaveLength(articles.length);
    const mine = new Set(articles.map((x) => x.id));
    const got = receiver.received.filter((r) => mine.has(r.body?.article?.id));
    expect(new Set(got.map((r) => r.body.article.id)).size).toBe(articles.length);
    expect(new Set(got.map((r) => r.body.eventId)).size).toBe(articles.length); // one event each (a repeat would reuse its id)
    expect(got.every((r) => r.body.event === 'article.published')).toBe(true);
  });

  it('an unpublish on one daemon racing a republish on another: events arrive in each article’s order and the receiver ends where svc is', async () => {
    const [a, b, third] = c.daemons;
    const ws = await site();
    const articles = await Promise.all(Array.from({ length: 12 }, (_, i) => seedArticle(a.app, ws, { title: `Raced ${i}` })));
    for (const art of articles) await publishArticle(a.app, ws, art.id);
    await drained(a.app);

    const outcomes = await Promise.allSettled(
      articles.flatMap((art, i) => [
        unpublishArticle([a, b, third][i % 3].app, ws, art.id),
        sleep((i % 4) * 60).then(() => publishArticle([b, third, a][i % 3].app, ws, art.id)),
      ]),
    );
    // A publish that meets an unpublish waiting for its receiver is refused (409); nothing else fails.
    console.log(`race outcomes: ${outcomes.filter((o) => o.status === 'rejected').length} refused of ${outcomes.length}`);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('unpublish_in_progress');
    await drained(a.app);

    const ids = articles.map((x) => x.id);
    const shown = receiverView(receiver.received);
    const seqs = await arrivalSeqs(a.app, receiver.received);
    for (const id of ids) {
      expect(shown.has(id), `receiver view of ${id}`).toBe(await onWebhook(a.app, ws.id, id));
      expect(inOrder(seqs.get(id) ?? []), `${id} arrived as ${seqs.get(id)}`).toBe(true);
    }
  });
});
