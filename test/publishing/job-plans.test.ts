import { describe, expect, it } from 'vitest';
import { runCleanup } from '../../src/jobs/cleanup.js';
import { publishMany, scheduleMany } from '../../src/publishing/publish-many.js';
import { publishDueArticles } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { datedDrafts, planWorkspace, statementsOf, wideStatements } from '../helpers/plans.js';

// The daemon's jobs on a deployed SQLite file (no planner statistics): what a scheduler tick and
// a cleanup round send, with a few hundred articles and some of them due. Every statement sent
// is EXPLAINed as sent (helpers/plans.ts). The webhook worker is webhook-plans.test.ts's.

const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'webhook_events', 'webhook_event_snapshots', 'webhook_deliveries', 'oauth_tokens', 'oauth_codes', 'oauth_requests', 'sessions'];

// Read in order with a LIMIT by design: the retention sweeps' walks from the start of their tables
// (the cursor bounds the next walks), a batch of 500 rows per statement.
const ALLOWED = [
  /^SCAN webhook_events\n    in: select `seq` from `webhook_events` order by `seq` asc limit \?$/,
  /^SCAN webhook_event_snapshots USING COVERING INDEX \w+\n    in: select `event_id` from `webhook_event_snapshots` order by `event_id` asc limit \?$/,
];

describe.skipIf(PG_URL)('the jobs read by index on SQLite without statistics', () => {
  const fixture = planWorkspace(async (app, ws) => {
    const drafts = await datedDrafts(app, ws, 300);
    await publishMany(app, ws, drafts.slice(0, 200));
    // Due now: 20 drafts and 10 republishes of live articles; later: 20 more.
    const now = app.clock.now().getTime();
    await scheduleMany(app, [
      ...drafts.slice(200, 220).map((article) => ({ article, at: new Date(now - 60_000).toISOString() })),
      ...drafts.slice(0, 10).map((article) => ({ article, at: new Date(now - 60_000).toISOString() })),
      ...drafts.slice(220, 240).map((article) => ({ article, at: new Date(now + 86_400_000).toISOString() })),
    ]);
  });

  it('a scheduler tick publishing what is due, and a cleanup round', { timeout: 60_000 }, async () => {
    const f = fixture();
    const app = f.d.app;
    let published = 0;
    const sent = await statementsOf(app.db, async () => {
      published += await publishDueArticles(app, (id) => getWorkspace(app, id));
      published += await publishDueArticles(app, (id) => getWorkspace(app, id));
      await runCleanup(app);
    });
    expect(published).toBe(30);
    expect((await wideStatements(app.db, sent, BIG)).filter((line) => !ALLOWED.some((a) => a.test(line)))).toEqual([]);
  });
});
