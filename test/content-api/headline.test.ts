import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditArticle } from '../../src/articles/audit.js';
import { updateArticle } from '../../src/articles/service.js';
import { createArticle } from '../../src/publishing/create.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { contentFixture } from './fixture.js';

// The body's `# H1` is the headline (the title, served apart) only when it opens the body. The
// first H1 used to be removed wherever it stood: a mid-post `# Part two` vanished from html.

const MID_H1 = `An introduction before any heading.

## Getting started

Some words.

# Part two

Words of the second part.
`;

describe('the headline H1 in the content API', () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture();
  });
  afterAll(() => f.d.stop());

  it('keeps an H1 that does not open the body, in html, markdown and outline order', async () => {
    const a = await f.publish({ title: 'A post with two parts', bodyMarkdown: MID_H1 });
    const { data } = await f.json(`/articles/${a.slug}`);
    expect(data.title).toBe('A post with two parts');
    expect(data.html).toContain('<h1 id="part-two">Part two</h1>');
    expect(data.html.indexOf('Getting started')).toBeLessThan(data.html.indexOf('Part two'));
    expect(data.markdown).toBe(MID_H1);
    // The audit counts it as the extra H1 it is (it used to be removed before counting).
    expect(auditArticle({ ...a, bodyMarkdown: MID_H1 }).checks.find((c) => c.id === 'heading_structure')!.message).toContain('1 extra H1 heading');
  });

  it('still removes the H1 that opens the body (after blank lines too), and only that one', async () => {
    const a = await f.publish({ title: 'The headline', bodyMarkdown: '\n\n# The headline\n\nFirst paragraph.\n\n## A section\n\nText.\n\n# Appendix\n\nMore.\n' });
    const { data } = await f.json(`/articles/${a.slug}`);
    expect(data.html).not.toContain('The headline');
    expect(data.html).toMatch(/^<p>First paragraph\.<\/p>/);
    expect(data.html).toContain('<h1 id="appendix">Appendix</h1>');
    expect(data.markdown).toBe('First paragraph.\n\n## A section\n\nText.\n\n# Appendix\n\nMore.\n');
  });

  it('takes the title from an opening H1 only: a body without one needs a title', async () => {
    const { article } = await createArticle(f.d.app, f.ws, { bodyMarkdown: '# From the body\n\nText.' });
    expect(article.title).toBe('From the body');
    await expect(createArticle(f.d.app, f.ws, { bodyMarkdown: MID_H1 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'Invalid article: a title is required (pass a title, or start the markdown with "# Title")',
    });
  });

  it('an edit shows at the next publish, which renders the body anew by this rule', async () => {
    const a = await f.publish({ title: 'Republished', bodyMarkdown: '# Republished\n\nOne.' });
    expect((await f.json(`/articles/${a.slug}`)).data.html).toBe('<p>One.</p>');
    await updateArticle(f.d.app, f.ws, a.id, { bodyMarkdown: MID_H1 });
    expect((await f.json(`/articles/${a.slug}`)).data.html).toBe('<p>One.</p>'); // the snapshot until the next publish
    await publishArticle(f.d.app, f.ws, a.id);
    const { data } = await f.json(`/articles/${a.slug}`);
    expect(data.html).toContain('<h1 id="part-two">Part two</h1>');
  });
});
