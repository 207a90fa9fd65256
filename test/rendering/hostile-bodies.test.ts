import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertRenderable } from '../../src/articles/body-limits.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { seedArticle } from '../helpers/seed.js';
import { TestClock } from '../helpers/clock.js';
import { importWorld } from '../imports/world.js';
import { connect, workspaceWithAdmin } from '../mcp/helpers.js';

// Bodies marked needs seconds to minutes (or overflows its stack) to render: refused by name,
// before any render, wherever a body comes in.
const HOSTILE = {
  emphasis: { body: '_a'.repeat(20_000), says: /has 20,000 emphasis and markup characters \(\* _ ~ ` < !\) in the paragraph at line 1; svc renders at most 2,000 in one paragraph/ },
  lists: { body: Array.from({ length: 500 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n'), says: /nests lists or blockquotes 5\d\d deep \(line 500\); svc renders at most 100 levels/ },
  quotes: { body: '>'.repeat(100_000), says: /nests lists or blockquotes 100,000 deep \(line 1\)/ },
};

describe('bodies svc cannot render in time are refused by name, before any render', () => {
  it('create_article and update_article refuse each hostile body at once, naming the article and the limit', async () => {
    const { d, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    const agent = await connect(d, await key());
    for (const [name, { body, says }] of Object.entries(HOSTILE)) {
      const created = await agent.call('create_article', { title: `Hostile ${name}`, slug: `hostile-${name}`, bodyMarkdown: body });
      expect(created.isError).toBe(true);
      expect(created.text).toMatch(new RegExp(`^The body of 'hostile-${name}' ${says.source}`));
      const ok = await agent.call('create_article', { title: `Fine ${name}`, slug: `fine-${name}`, bodyMarkdown: 'Short and *plain*.' });
      expect(ok.isError).toBeFalsy();
      const updated = await agent.call('update_article', { slug: `fine-${name}`, bodyMarkdown: body });
      expect(updated.isError).toBe(true);
      expect(updated.text).toMatch(new RegExp(`^The body of 'fine-${name}' ${says.source}`));
    }
    const profile = await agent.call('get_site_profile');
    expect(profile.text).toContain('\nArticles: 3/10\n');
  });

  it('svc articles import names the file and the limit, and imports nothing', async () => {
    const w = await importWorld();
    writeFileSync(path.join(w.d.dir, 'good.md'), '---\ntitle: Good\n---\nFine text.\n');
    writeFileSync(path.join(w.d.dir, 'deep.md'), `---\ntitle: Deep\n---\n${HOSTILE.lists.body}\n`);
    writeFileSync(path.join(w.d.dir, 'quotes.md'), `---\ntitle: Quotes\n---\n${HOSTILE.quotes.body}\n`);
    const r = await w.cli(['articles', 'import', '--publish', 'good.md', 'deep.md', 'quotes.md']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deep\.md: The body of 'deep\.md' nests lists or blockquotes 5\d\d deep \(line 50\d\); svc renders at most 100 levels\. Flatten the list or quote\./);
    expect(r.stderr).toMatch(/quotes\.md: The body of 'quotes\.md' nests lists or blockquotes 100,000 deep/);
    expect(r.stderr).not.toContain('Internal error');
    expect((await w.cli(['articles', 'list', '--json'])).json().total).toBe(0);
  });

  it('publishing a body stored before the limits is refused by name with body_too_complex, and nothing is published', async () => {
    const { d, ws } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const article = await seedArticle(d.app, ws, { title: 'Old', slug: 'old-post', bodyMarkdown: 'fine' });
    await d.app.db('articles').where({ id: article.id }).update({ body_markdown: HOSTILE.emphasis.body });
    const err = await publishArticle(d.app, ws, 'old-post').catch((e) => e);
    expect(err).toMatchObject({ code: 'body_too_complex', status: 422 });
    expect(err.message).toMatch(/^The body of 'old-post' has 20,000 emphasis/);
    expect((await d.app.db('articles').where({ id: article.id }).first()).status).toBe('draft');
  });

  it('a batch publish renders bodies many to a worker task, and still names the one stored beyond the limits', async () => {
    const { d, ws } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const drafts = [];
    for (let i = 0; i < 40; i++) drafts.push(await seedArticle(d.app, ws, { title: `Post ${i}`, slug: `post-${i}`, bodyMarkdown: `Body *${i}*.` }));
    await d.app.db('articles').where({ id: drafts[2].id }).update({ body_markdown: HOSTILE.emphasis.body });
    const rows = await d.app.db('articles').whereIn('id', drafts.map((a) => a.id));
    const fresh = drafts.map((a) => ({ ...a, bodyMarkdown: rows.find((r) => r.id === a.id).body_markdown }));
    // 40 bodies: tasks of 16 on up to two workers, the refused task's bodies then one by one.
    const result = await publishMany(d.app, ws, fresh, { keepGoing: true });
    expect(result.published).toHaveLength(39);
    expect(result.published.map((r) => r.article.slug)).not.toContain('post-2');
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0].article.slug).toBe('post-2');
    expect(result.failed[0].error).toMatchObject({ code: 'body_too_complex' });
    expect(result.failed[0].error.message).toMatch(/^The body of 'post-2' has 20,000 emphasis/);
  });

  it('bodies within each single limit but costly in sum are refused by the summed limits', () => {
    const refusal = (body: string) => {
      try {
        assertRenderable('many', body);
      } catch (err) {
        return err as { code: string; details: { limit: string } };
      }
      return undefined;
    };
    // 2,000 lines of quotes 100 deep: 38 s of marked without the limit.
    expect(refusal(Array.from({ length: 2_000 }, () => `${'>'.repeat(100)} a`).join('\n\n'))).toMatchObject({ code: 'body_too_complex', details: { limit: 'nesting' } });
    expect(refusal(Array.from({ length: 400 }, () => `${'>'.repeat(100)} a`).join('\n\n'))).toBeUndefined();
    // 200 paragraphs of 1,999 emphasis delimiters each.
    expect(refusal(Array.from({ length: 200 }, () => '_a'.repeat(1_999)).join('\n\n'))).toMatchObject({ code: 'body_too_complex', details: { limit: 'work' } });
    expect(refusal(Array.from({ length: 20 }, () => '_a'.repeat(1_999)).join('\n\n'))).toBeUndefined();
  });

  it('every real article passes: the fixtures and the long documents of our dependencies', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory() ? files(path.join(dir, f)) : [path.join(dir, f)]));
    const docs = files(path.join(root, 'fixtures')).filter((f) => /\.(md|mdx|markdown)$/.test(f));
    for (const dep of ['pino/docs/api.md', 'ioredis/README.md', 'knex/CHANGELOG.md', 'commander/Readme.md', 'sanitize-html/README.md', 'marked/README.md']) docs.push(path.join(root, '..', 'node_modules', dep));
    for (const doc of docs) expect(() => assertRenderable(doc, readFileSync(doc, 'utf8')), doc).not.toThrow();
  });
});
