import { describe, expect, it } from 'vitest';
import { getArticle } from '../../src/articles/service.js';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { listForArticle } from '../../src/connectors/publications.js';
import { runCli } from '../helpers/cli.js';
import { independentVerify } from './receiver.js';
import { webhookWorld } from './setup.js';
import { workerLooks } from '../helpers/ticks.js';

describe('unpublish through the webhook', () => {
  it('keeps the article published, records the error and exits 1 when the receiver refuses', async () => {
    let refuse = true;
    const w = await webhookWorld({ script: (req) => (req.body?.event === 'article.unpublished' && refuse ? { status: 500, body: { error: 'db down' } } : { status: 200 }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);

    const res = await runCli(['articles', 'unpublish', a.slug, '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('error: The webhook receiver did not confirm the unpublish: HTTP 500: {"error":"db down"}. The article stays published.');
    expect(res.stderr).not.toContain('This is a bug');
    const unpub = w.receiver.received[1];
    expect(unpub.body.event).toBe('article.unpublished');
    expect(independentVerify(unpub.raw, unpub.headers['x-service-signature'], w.secret)).toBe(true);

    // Nothing changed: still published, publication kept, the error stored on it.
    expect((await getArticle(w.d.app, w.ws, a.id)).status).toBe('published');
    const webhook = (await findConnector(w.d.app.db, w.ws.id, 'webhook'))!;
    const pub = (await listForArticle(w.d.app.db, a.id)).find((p) => p.connectorId === webhook.id);
    expect(pub?.lastError).toBe('HTTP 500: {"error":"db down"}');
    // Logged, and never retried.
    const log = await runCli(['webhook', 'deliveries', '--failed', '--article', a.slug, '--json', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(log.json()).toMatchObject([{ event: 'article.unpublished', statusCode: 500, ok: false }]);
    await workerLooks(w.d.app);
    expect(w.receiver.received).toHaveLength(2);

    refuse = false;
    const again = await runCli(['articles', 'unpublish', a.slug, '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(again.code).toBe(0);
    expect((await getArticle(w.d.app, w.ws, a.id)).status).not.toBe('published');
    expect(await listForArticle(w.d.app.db, a.id)).toEqual([]);
  });

  it('answers a connection failure the same way', async () => {
    const w = await webhookWorld();
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    await w.receiver.close();
    const res = await runCli(['articles', 'unpublish', a.slug, '-w', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(res.code).toBe(1);
    expect(res.json().error).toMatchObject({ code: 'receiver_refused', message: expect.stringContaining('connection refused') });
    expect((await getArticle(w.d.app, w.ws, a.id)).status).toBe('published');
  });

  it('says so when the webhook is disabled and its receiver therefore was not told', async () => {
    const w = await webhookWorld();
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    expect((await runCli(['webhook', 'disable', '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir })).code).toBe(0);

    const res = await runCli(['articles', 'unpublish', a.slug, '-w', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ receiverNotTold: true });
    expect(res.stderr).toBe(''); // --json: receiverNotTold says it; stderr stays empty (issue 24)
    await new Promise((r) => setTimeout(r, 200));
    expect(w.receiver.received).toHaveLength(1); // only the publish
    expect(await listForArticle(w.d.app.db, a.id)).toEqual([]);
  });
});
