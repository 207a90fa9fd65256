import { beforeAll, describe, expect, it } from 'vitest';
import { scheduleArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { type Cluster, clusterSupported, startCluster } from '../helpers/cluster.js';
import { poll } from '../helpers/poll.js';
import { recordTicks, schedulerTicks } from '../helpers/ticks.js';
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
    // Whole ticks on every daemon after the schedule: nothing is due yet.
    const early = await Promise.all(c.daemons.map((d) => schedulerTicks(d.app, 2)));
    expect(early.flat().map((t) => t.published)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Number((await a.app.db('articles').where({ workspace_id: ws.id, status: 'published' }).count({ n: '*' }).first())?.n)).toBe(0);
    const ticks = c.daemons.map((d) => recordTicks(d.app));

    c.advance(3_600_000 + 1_000);
    const published = await poll(
      async () => Number((await a.app.db('articles').where({ workspace_id: ws.id, status: 'published' }).count({ n: '*' }).first())?.n),
      (n) => n === articles.length,
    );
    expect(published).toBe(articles.length);
    // Over every tick of every daemon, each article was published once (the claims never doubled one).
    await Promise.all(c.daemons.map((d) => schedulerTicks(d.app, 1)));
    expect(ticks.flat().reduce((n, t) => n + t.published, 0)).toBe(articles.length);
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
    await drained(a.app);

    // One final assertion over every outcome: each pair's outcome decides where the article ends.
    // The unpublish always succeeds. The publish either met the unpublish waiting for its receiver
    // (refused 409: the article ends down), came first (article.updated, then taken down: down), or
    // came after it (article.published: up). Anything else (a 500, a lost publish) fails the test.
    const ids = articles.map((x) => x.id);
    const shown = receiverView(receiver.received);
    const seqs = await arrivalSeqs(a.app, receiver.received);
    const expected: string[] = [];
    const actual: string[] = [];
    for (const [i, id] of ids.entries()) {
      const [unpublished, published] = [outcomes[2 * i], outcomes[2 * i + 1]];
      const publish =
        published.status === 'rejected'
          ? `refused ${(published.reason as { code?: string }).code}`
          : (published.value as Awaited<ReturnType<typeof publishArticle>>)!.targets.find((t) => t.kind === 'webhook')?.event ?? 'no webhook event';
      const up = publish === 'article.published';
      expected.push(`${id}: unpublish fulfilled, publish ${publish}, ${up ? 'up' : 'down'}`);
      const status = (await a.app.db('articles').where({ id }).first()).status;
      actual.push(`${id}: unpublish ${unpublished.status}, publish ${publish}, ${status === 'published' && (await onWebhook(a.app, ws.id, id)) ? 'up' : 'down'}`);
      expect(['refused unpublish_in_progress', 'article.updated', 'article.published'], `${id}: publish ${publish}`).toContain(publish);
      expect(shown.has(id), `receiver view of ${id}`).toBe(up);
      expect(inOrder(seqs.get(id) ?? []), `${id} arrived as ${seqs.get(id)}`).toBe(true);
    }
    expect(actual).toEqual(expected);
    const tally = (what: string) => expected.filter((e) => e.includes(what)).length;
    console.log(`race outcomes: ${tally('refused')} refused, ${tally('article.updated')} before, ${tally('article.published')} after the unpublish`);
  });
});
