import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { createPreview } from '../../src/publishing/previews.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { contentFixture } from '../content-api/fixture.js';

// Within every body limit, but about a second of marked (forty paragraphs of 1,999 emphasis delimiters).
const SLOW = Array.from({ length: 40 }, () => '_a'.repeat(1_999)).join('\n\n');

describe(`rendering runs in worker threads under a deadline (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ overrides: { 'rendering.timeout': '300ms' }, jobs: false });
  });
  afterAll(() => f.d.stop());
  const ws = () => getWorkspace(f.d.app, f.ws.id);

  it('a render past its deadline is stopped with a clear error, and the replaced worker renders the next', async () => {
    const slow = await seedArticle(f.d.app, await ws(), { title: 'Slow draft', slug: 'slow-draft', bodyMarkdown: SLOW });
    const grant = await createPreview(f.d.app, await ws(), slow.slug);
    const refused = await f.api(`/articles/slow-draft?preview=${grant.token}`);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).error).toMatchObject({
      code: 'render_timeout',
      message: "Rendering the body of 'slow-draft' took longer than 0.3 s and was stopped. Simplify the body: shorter paragraphs, less emphasis, flatter lists.",
    });
    expect(f.d.app.renderer.stats().running).toBe(0);

    // A new worker took the stopped one's place.
    const fine = await seedArticle(f.d.app, await ws(), { title: 'Fine draft', bodyMarkdown: 'Fine *text*.' });
    const ok = await f.api(`/articles/${fine.slug}?preview=${(await createPreview(f.d.app, await ws(), fine.slug)).token}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.html).toBe('<p>Fine <em>text</em>.</p>');
    // A publish of the slow body is refused the same way, and publishes nothing.
    await expect(publishArticle(f.d.app, await ws(), slow.id)).rejects.toMatchObject({ code: 'render_timeout', status: 422 });
    expect((await f.api('/articles/slow-draft')).status).toBe(404);
  });
});

describe(`a publish of many renders on every worker at once (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ overrides: { 'rendering.workers': 2, 'rendering.timeout': '60s' }, jobs: false });
  });
  afterAll(() => f.d.stop());

  // Here, not under the 300 ms deadline above: on a loaded machine a small render can wait longer than that for a core.
  it('a preview renders once per draft version, not once per view', async () => {
    const draft = await seedArticle(f.d.app, await getWorkspace(f.d.app, f.ws.id), { title: 'Viewed often', bodyMarkdown: 'Version *one*.' });
    const url = `/articles/${draft.slug}?preview=${(await createPreview(f.d.app, await getWorkspace(f.d.app, f.ws.id), draft.slug)).token}`;
    const started = f.d.app.renderer.stats().started;
    const views = await Promise.all([1, 2, 3].map(() => f.api(url)));
    for (const v of views) expect(((await v.json()) as any).data.html).toBe('<p>Version <em>one</em>.</p>');
    expect((await (await f.api(url)).json() as any).data.html).toBe('<p>Version <em>one</em>.</p>');
    expect(f.d.app.renderer.stats().started).toBe(started + 1);
    await updateArticle(f.d.app, await getWorkspace(f.d.app, f.ws.id), draft.id, { bodyMarkdown: 'Version *two*.' });
    expect((await (await f.api(url)).json() as any).data.html).toBe('<p>Version <em>two</em>.</p>');
    expect((await (await f.api(url)).json() as any).data.html).toBe('<p>Version <em>two</em>.</p>');
    expect(f.d.app.renderer.stats().started).toBe(started + 2);
  });

  it('while a long render is in flight, another workspace is answered', async () => {
    const other = await seedWorkspace(f.d.app, { name: 'other.example' });
    const { key: otherKey } = await generateBlogKey(f.d.app, other);
    const post = await seedArticle(f.d.app, other, { title: 'Other post', bodyMarkdown: 'Plain *text*.' });
    await publishArticle(f.d.app, other, post.id);
    // Seconds of marked within every limit: the dense paragraphs above, quotes 100 deep, 1.7 MB of prose.
    const long = `${SLOW}\n\n${`${'>'.repeat(100)} a\n\n`.repeat(450)}${`${'Plain words in a long article. '.repeat(32)}\n\n`.repeat(1_700)}`;
    const ws = await getWorkspace(f.d.app, f.ws.id);
    const draft = await seedArticle(f.d.app, ws, { title: 'Long draft', slug: 'long-draft', bodyMarkdown: long });
    const grant = await createPreview(f.d.app, ws, draft.slug);

    let answered = false;
    const preview = f.api(`/articles/long-draft?preview=${grant.token}`).then((res) => ((answered = true), res));
    expect(await poll(async () => f.d.app.renderer.stats().running, (n) => n === 1)).toBe(1);
    // The render is in flight: the other workspace's request is answered meanwhile.
    const res = await fetch(`${f.base}/articles/${post.slug}`, { headers: { Authorization: `Bearer ${otherKey}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.html).toBe('<p>Plain <em>text</em>.</p>');
    expect(answered).toBe(false);
    expect(f.d.app.renderer.stats().running).toBe(1);
    expect((await preview).status).toBe(200);
  });

  it('two bodies render side by side, each once, and every article is served', async () => {
    const ws = await getWorkspace(f.d.app, f.ws.id);
    // Each a few tens of milliseconds of marked: long enough to overlap.
    const body = Array.from({ length: 4 }, () => '_a'.repeat(1_000)).join('\n\n');
    const drafts = await Promise.all(Array.from({ length: 12 }, (_, i) => seedArticle(f.d.app, ws, { title: `Batch ${i}`, bodyMarkdown: body })));
    expect(f.d.app.renderer.stats().peak).toBeLessThan(2); // nothing ran side by side before
    // Both workers ready first: on a busy machine a worker still starting when the batch is done
    // would leave it all to the other. Two tiny bodies at once start the second worker (the first
    // renders both long before the second has loaded).
    await Promise.all([f.d.app.renderer.markdown('a', 'warm-1'), f.d.app.renderer.markdown('b', 'warm-2')]);
    expect(await poll(async () => f.d.app.renderer.stats().ready, (n) => n === 2)).toBe(2);
    const { started, peak } = f.d.app.renderer.stats();
    expect(peak).toBeLessThan(2);
    expect((await publishMany(f.d.app, ws, drafts)).published).toHaveLength(12);
    expect(f.d.app.renderer.stats()).toMatchObject({ started: started + 12, peak: 2 });
    expect((await f.json('/articles?limit=100')).data.total).toBe(12);
  });
});
