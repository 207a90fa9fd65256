import { describe, expect, it } from 'vitest';
import { getArticle } from '../../src/articles/service.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { publicationStates } from '../../src/publishing/state.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { startDaemon } from '../helpers/daemon.js';
import { webhookWorld } from '../webhooks/setup.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

const READS_SNAPSHOTS = /select[\s\S]*webhook_event_snapshots/i;

describe("an article's webhook state", () => {
  it('is read without the events\' snapshots (each holds an article body), in a listing and in a republish', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await setWebhook(d.app, ws, { url: 'http://127.0.0.1:9/hooks' });
    const ids: string[] = [];
    for (const title of ['Compost in winter', 'Pruning roses']) ids.push((await seedArticle(d.app, ws, { title, bodyMarkdown: 'words '.repeat(20_000) })).id);
    for (const id of ids) await publishArticle(d.app, ws, id);

    const sent: string[] = [];
    const onQuery = (q: { sql: string }) => sent.push(q.sql);
    d.app.db.on('query', onQuery);
    const states = await publicationStates(d.app, ws, await Promise.all(ids.map((id) => getArticle(d.app, ws, id))));
    await publishArticle(d.app, ws, ids[0]); // looks for a pending unpublish of the article
    d.app.db.off('query', onQuery);

    expect([...states.values()].map((s) => s.destinations.find((x) => x.kind === 'webhook')?.state)).toEqual(['pending', 'pending']);
    expect(sent.some((sql) => /webhook_events/.test(sql))).toBe(true);
    expect(sent.filter((sql) => READS_SNAPSHOTS.test(sql))).toEqual([]);
  });

  it("shows each failed article's last answer from one read of the delivery log, whatever the number of articles", async () => {
    const w = await webhookWorld({ script: (_req, i) => ({ status: 500, raw: `down ${i}` }) });
    const ids: string[] = [];
    for (const title of ['Compost in winter', 'Pruning roses', 'Sowing beans']) ids.push((await w.article({ title })).id);
    for (const id of ids) await publishArticle(w.d.app, w.ws, id);
    // Three attempts each (the test schedule retries twice), then failed.
    await expect.poll(async () => Number((await w.d.app.db('webhook_events').where({ status: 'failed' }).count({ n: '*' }).first())!.n), { timeout: 15_000 }).toBe(3);
    const lastAnswer = new Map<string, string>();
    for (const r of w.receiver.received) lastAnswer.set(r.body.article.id, `down ${w.receiver.received.indexOf(r)}`);

    const sent: string[] = [];
    const onQuery = (q: { sql: string }) => sent.push(q.sql);
    w.d.app.db.on('query', onQuery);
    const states = await publicationStates(w.d.app, w.ws, await Promise.all(ids.map((id) => getArticle(w.d.app, w.ws, id))));
    w.d.app.db.off('query', onQuery);

    for (const id of ids) expect(states.get(id)!.destinations.find((x) => x.kind === 'webhook')).toMatchObject({ state: 'failed', attempts: 3, lastError: `HTTP 500: ${lastAnswer.get(id)}` });
    expect(sent.filter((sql) => /webhook_deliveries/.test(sql))).toHaveLength(1);
  });
});
