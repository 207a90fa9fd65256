import { describe, expect, it } from 'vitest';
import { deleteArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { findConnector } from '../../src/connectors/store.js';
import { listForArticle } from '../../src/connectors/publications.js';
import { renderMarkdown, wordCount } from '../../src/lib/markdown.js';
import { updateArticle } from '../../src/articles/service.js';
import { runCli } from '../helpers/cli.js';
import { independentVerify } from './receiver.js';
import { webhookWorld } from './setup.js';
import { workerLooks } from '../helpers/ticks.js';

const TITLE = 'Ten tips for tea';
const BODY = '# Ten tips for tea\n\n## Water\n\nUse **fresh** water.\n\n- one\n- two\n';

describe('webhook events', () => {
  it('sends article.published with every payload field, the headers and a signature that verifies independently', async () => {
    const w = await webhookWorld();
    const a = await w.article({ title: TITLE, bodyMarkdown: BODY, contentType: 'GUIDE', metaTitle: 'Tea tips', metaDescription: 'How to brew', focusKeyword: 'tea', featuredImageUrl: 'https://img.example.com/tea.png', targetLength: 1500 });
    await publishArticle(w.d.app, w.ws, a.id);
    const [r] = await w.receiver.waitFor(1);

    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-service-event']).toBe('article.published');
    expect(r.headers['x-service-delivery']).toBe(r.body.deliveryId);
    expect(r.headers['x-service-event-id']).toBe(r.body.eventId);
    expect(r.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(independentVerify(r.raw, r.headers['x-service-signature'], w.secret)).toBe(true);
    expect(independentVerify(r.raw, r.headers['x-service-signature'], 'whsec_wrongwrongwrongwrongwrongwrongwrong')).toBe(false);

    const markdown = '## Water\n\nUse **fresh** water.\n\n- one\n- two\n';
    expect(r.body).toEqual({
      event: 'article.published',
      eventId: expect.stringMatching(/^evt_/),
      deliveredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      deliveryId: expect.stringMatching(/^dlv_/),
      workspace: { id: w.ws.id, name: w.ws.name, websiteUrl: 'https://example.com' },
      article: {
        id: a.id,
        title: 'Ten tips for tea',
        slug: a.slug,
        contentType: 'GUIDE',
        metaTitle: 'Tea tips',
        metaDescription: 'How to brew',
        focusKeyword: 'tea',
        featuredImageUrl: 'https://img.example.com/tea.png',
        targetLength: 1500,
        wordCount: wordCount(markdown),
        seoScore: a.seoScore,
        publishedAt: expect.stringMatching(/Z$/),
        publishedUrl: null,
        body: { markdown, html: renderMarkdown(markdown).html },
      },
    });
    expect(r.body.article.body.html).toContain('<strong>fresh</strong>');
  });

  it('sends article.updated on republish, article.unpublished on unpublish and article.deleted on delete, in order', async () => {
    const w = await webhookWorld({ script: (req) => ({ status: 200, body: req.body?.event === 'article.published' ? { url: 'https://blog.example.com/tea' } : {} }) });
    const a = await w.article({ title: TITLE, bodyMarkdown: BODY });
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    await updateArticle(w.d.app, w.ws, a.id, { metaTitle: 'Changed' });
    await publishArticle(w.d.app, w.ws, a.id);
    const [, updated] = await w.receiver.waitFor(2);
    expect(updated.body.event).toBe('article.updated');
    expect(updated.body.article.metaTitle).toBe('Changed');
    // The receiver answered { url } to the publish: it is stored and sent from then on.
    expect(updated.body.article.publishedUrl).toBe('https://blog.example.com/tea');
    const webhook = (await findConnector(w.d.app.db, w.ws.id, 'webhook'))!;
    expect((await listForArticle(w.d.app.db, a.id)).find((p) => p.connectorId === webhook.id)?.publishedUrl).toBe('https://blog.example.com/tea');

    await unpublishArticle(w.d.app, w.ws, a.id);
    const unpublished = w.receiver.received[2];
    expect(unpublished.body.event).toBe('article.unpublished');
    // publishedAt and publishedUrl describe the post being removed.
    expect(unpublished.body.article.publishedAt).toBe(updated.body.article.publishedAt);
    expect(unpublished.body.article.publishedUrl).toBe('https://blog.example.com/tea');
    expect(independentVerify(unpublished.raw, unpublished.headers['x-service-signature'], w.secret)).toBe(true);

    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(4);
    expect(w.receiver.received[3].body.event).toBe('article.published'); // first publish again after the take-down
    await deleteArticle(w.d.app, w.ws, a.id);
    const [, , , , deleted] = await w.receiver.waitFor(5);
    expect(deleted.body.event).toBe('article.deleted');
    expect(deleted.headers['x-service-event']).toBe('article.deleted');
    expect(deleted.body.article).toMatchObject({ id: a.id, slug: a.slug, title: 'Ten tips for tea' });
    expect(deleted.body.article.body.markdown).toContain('## Water');
    const deliveryIds = new Set(w.receiver.received.map((x) => x.body.deliveryId));
    expect(deliveryIds.size).toBe(5);
  });

  it('sends a test event from the CLI with a sample article and exits 0 on 2xx, 1 otherwise', async () => {
    let status = 200;
    const w = await webhookWorld({ script: () => ({ status, body: status === 200 ? { ok: true } : { error: 'nope' } }) });
    const ok = await runCli(['webhook', 'test', '--workspace', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ ok: true, status: 200, response: '{"ok":true}', durationMs: expect.any(Number) });
    const [r] = w.receiver.received;
    expect(r.body.event).toBe('test');
    expect(r.headers['x-service-event']).toBe('test');
    expect(r.body.article).toMatchObject({ id: 'art_sample', title: 'Sample article from svc', contentType: 'BLOG_POST' });
    expect(r.body.article.body.html).toContain('<h2 id="what-this-is">');
    expect(independentVerify(r.raw, r.headers['x-service-signature'], w.secret)).toBe(true);

    const human = await runCli(['webhook', 'test', '--workspace', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(human.stdout).toMatch(/HTTP 200 in \d+ ms/);

    status = 500;
    const bad = await runCli(['webhook', 'test', '--workspace', w.ws.name, '--json'], { env: w.d.env, cwd: w.d.dir });
    expect(bad.code).toBe(1);
    expect(bad.json().error).toMatchObject({ code: 'webhook_test_failed', status: 500, response: '{"error":"nope"}' });
    expect(bad.json().error.message).toContain('HTTP 500');
    expect(bad.stderr).toBe(''); // --json: nothing for people on stderr, no daemon log line (issue 24)
    // A test is never retried.
    await workerLooks(w.d.app);
    expect(w.receiver.received).toHaveLength(3);
  });
});
