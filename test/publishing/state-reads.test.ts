import { describe, expect, it } from 'vitest';
import { getArticle } from '../../src/articles/service.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { publicationStates } from '../../src/publishing/state.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { startDaemon } from '../helpers/daemon.js';
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
});
