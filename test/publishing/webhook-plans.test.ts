import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCleanup } from '../../src/jobs/cleanup.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { describeWebhook, listWebhookDeliveries, redeliver } from '../../src/webhooks/service.js';
import { webhookHealth } from '../../src/webhooks/health.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { datedDrafts, statementsOf, wideStatements } from '../helpers/plans.js';
import { poll } from '../helpers/poll.js';
import { type WebhookWorld, webhookWorld } from '../webhooks/setup.js';

// The webhook path on a deployed SQLite file (no planner statistics: `workspace_id = ?` looks
// selective, and on a one-workspace install it is every row): an event queued by a publish,
// delivered to a real receiver, retried once, the delivery log listed and redelivered, the
// cleanup. Every statement sent is EXPLAINed as sent (helpers/plans.ts).

// Read in order with a LIMIT by design: the retention sweeps' walks from the start of their tables
// (the cursor bounds the next walks), a batch of 500 rows per statement.
const ALLOWED = [
  /^SCAN webhook_events\n    in: select `seq` from `webhook_events` order by `seq` asc limit \?$/,
  /^SCAN webhook_event_snapshots USING COVERING INDEX \w+\n    in: select `event_id` from `webhook_event_snapshots` order by `event_id` asc limit \?$/,
];

const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'webhook_events', 'webhook_event_snapshots', 'webhook_deliveries'];

describe.skipIf(PG_URL)('the webhook path reads by index on SQLite without statistics', () => {
  let w: WebhookWorld;
  beforeAll(async () => {
    // The first attempt of the article the test publishes fails: one retry.
    let failed = false;
    w = await webhookWorld({
      jobs: false,
      overrides: { 'webhooks.retention': 1 },
      script: (req) => {
        if (!failed && req.body?.article?.slug === 'fresh') {
          failed = true;
          return { status: 500 };
        }
        return { status: 200 };
      },
    });
    const app = w.d.app;
    const drafts = await datedDrafts(app, w.ws, 300);
    await publishMany(app, w.ws, drafts);
  }, 120_000);
  afterAll(() => w.d.stop());

  it('publish, delivery with a retry, the delivery log, a redelivery and the cleanup', { timeout: 60_000 }, async () => {
    const app = w.d.app;
    const delivered = () => app.db('webhook_events').where({ status: 'pending' }).count({ n: '*' }).first();
    let freshId = '';
    const sent = await statementsOf(app.db, async () => {
      const ws = await getWorkspace(app, w.ws.id);
      const worker = startWebhookWorker(app);
      try {
        await poll(delivered, (r) => Number(r?.n) === 0, 30_000);
        freshId = (await w.article({ title: 'Fresh', slug: 'fresh' })).id;
        await publishArticle(app, ws, freshId);
        await publishArticle(app, ws, 'post-5');
        await poll(delivered, (r) => Number(r?.n) === 0, 30_000);
        await poll(() => listWebhookDeliveries(app, ws, { articleId: freshId }), (l) => l.length === 2);
      } finally {
        await worker.stop();
      }
      const log = await listWebhookDeliveries(app, ws, {});
      expect(log.length).toBeGreaterThan(0);
      expect((await listWebhookDeliveries(app, ws, { failed: true })).map((d) => d.articleId)).toEqual([freshId]);
      await listWebhookDeliveries(app, ws, { articleId: freshId, limit: 10 });
      await describeWebhook(app, ws);
      await webhookHealth(app, [ws]);
      await redeliver(app, ws, log[0].id);
      await runCleanup(app);
    });
    expect(w.receiver.received.length).toBeGreaterThan(300);
    expect((await wideStatements(app.db, sent, BIG)).filter((line) => !ALLOWED.some((a) => a.test(line)))).toEqual([]);
  });
});
