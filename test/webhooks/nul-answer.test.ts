import { describe, expect, it } from 'vitest';
import { publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { PG_URL } from '../helpers/env.js';
import { webhookWorld } from './setup.js';

describe(`a receiver whose answer holds a NUL byte (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('has its attempts recorded, the NUL shown as U+FFFD: a failure is retried on schedule, a success delivered once', async () => {
    const w = await webhookWorld({ script: (_req, i) => ({ status: i === 0 ? 500 : 200, raw: `answer ${i}\u0000end` }) });
    const recorded: boolean[] = [];
    w.d.app.events.on('webhooks.attempted', (e: { recorded: boolean }) => recorded.push(e.recorded));
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    await w.receiver.waitFor(2);
    await expect.poll(async () => (await w.d.app.db('webhook_events').first('status')).status, { timeout: 10_000 }).toBe('delivered');
    const log = await w.d.app.db('webhook_deliveries').orderBy('attempt').select('attempt', 'status_code', 'response_excerpt');
    expect(log).toEqual([
      { attempt: 1, status_code: 500, response_excerpt: 'answer 0\uFFFDend' },
      { attempt: 2, status_code: 200, response_excerpt: 'answer 1\uFFFDend' },
    ]);
    // Reported once the attempt's effects are through (a success after a failure clears the webhook's failing state first).
    await expect.poll(() => recorded, { timeout: 10_000 }).toEqual([true, true]);
    expect(w.receiver.received).toHaveLength(2);
  });

  it('answering a publishedUrl with a NUL in it: delivered once, no URL stored', async () => {
    const w = await webhookWorld({ script: () => ({ status: 200, raw: JSON.stringify({ url: 'https://blog.example.com/a\u0000b' }) }) });
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    await w.receiver.waitFor(1);
    await expect.poll(async () => (await w.d.app.db('webhook_events').first('status')).status, { timeout: 10_000 }).toBe('delivered');
    expect(Number((await w.d.app.db('publications').whereNotNull('published_url').count({ n: '*' }).first())!.n)).toBe(0);
    expect(w.receiver.received).toHaveLength(1);
  });

  it('refusing an unpublish with a NUL in its answer: the refusal is told and stored, the NUL as U+FFFD', async () => {
    let status = 200;
    const w = await webhookWorld({ script: () => ({ status, raw: 'no\u0000pe' }) });
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    await expect.poll(async () => (await w.d.app.db('webhook_events').first('status')).status, { timeout: 10_000 }).toBe('delivered');
    status = 500;
    await expect(unpublishArticle(w.d.app, w.ws, a.id)).rejects.toMatchObject({ code: 'receiver_refused', message: expect.stringContaining('no\uFFFDpe') });
    expect((await w.d.app.db('publications').whereNotNull('last_error').first('last_error')).last_error).toContain('HTTP 500: no\uFFFDpe');
    expect((await w.d.app.db('webhook_deliveries').where({ status_code: 500 }).first('response_excerpt')).response_excerpt).toBe('no\uFFFDpe');
  });
});
