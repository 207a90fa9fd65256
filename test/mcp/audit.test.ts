import { describe, expect, it } from 'vitest';
import { auditArticle } from '../../src/articles/audit.js';

const base = {
  title: 'Sourdough bread for beginners',
  slug: 'sourdough-bread-for-beginners',
  metaTitle: null,
  metaDescription: null,
  focusKeyword: 'sourdough bread',
  targetLength: 0,
  featuredImageUrl: null,
  imageAlt: null,
  bodyMarkdown: '',
};

const check = (r: ReturnType<typeof auditArticle>, id: string) => r.checks.find((c) => c.id === id)!;

describe('auditArticle (on-page SEO audit)', () => {
  it('weights add up to 100 and the score is the sum of passed checks', () => {
    const r = auditArticle(base);
    expect(r.checks.reduce((s, c) => s + c.weight, 0)).toBe(100);
    expect(r.score).toBe(r.checks.filter((c) => c.passed).reduce((s, c) => s + c.weight, 0));
  });

  it('measures length against targetLength (90%) and ignores code blocks for headings and links', () => {
    const body = ['Intro about sourdough bread.', '', '## Sourdough bread basics', '', 'w '.repeat(100), '', '```md', '# not a heading', '[not](a-link)', '```', '', '## More'].join('\n');
    const r = auditArticle({ ...base, bodyMarkdown: body, targetLength: 130 });
    expect(check(r, 'word_count')).toMatchObject({ passed: false, message: expect.stringMatching(/below the target of 130; write at least 117/) });
    expect(check(r, 'heading_structure').passed).toBe(true);
    expect(check(r, 'links').passed).toBe(false);
    expect(check(r, 'keyword_in_first_paragraph').passed).toBe(true);
    expect(check(r, 'keyword_in_headings').passed).toBe(true);
    expect(auditArticle({ ...base, bodyMarkdown: body, targetLength: 100 }).checks.find((c) => c.id === 'word_count')!.passed).toBe(true);
  });

  it('needs alt text on the featured image too, and the meta lengths within limits', () => {
    const r = auditArticle({ ...base, featuredImageUrl: 'https://example.com/a.jpg', metaTitle: 'x'.repeat(61), metaDescription: 'y'.repeat(100) });
    expect(check(r, 'image_alt')).toMatchObject({ passed: false, message: expect.stringContaining('1 image has no alt text') });
    expect(check(r, 'meta_title_length').message).toBe('SEO title is 61 characters; make metaTitle 30-60 characters');
    expect(check(r, 'meta_description_length').message).toBe('Meta description is 100 characters; make it 120-160');
    expect(check(auditArticle({ ...base, featuredImageUrl: 'https://example.com/a.jpg', imageAlt: 'A loaf' }), 'image_alt').passed).toBe(true);
  });

  it('flags an extra H1 in the body and a missing focus keyword', () => {
    const r = auditArticle({ ...base, focusKeyword: null, bodyMarkdown: '# Title\n\ntext\n\n# Second H1\n\n## A\n\n## B' });
    expect(check(r, 'heading_structure').message).toMatch(/1 extra H1 heading/);
    expect(check(r, 'focus_keyword').passed).toBe(false);
    expect(check(r, 'keyword_in_title').message).toBe('set a focus keyword first');
  });
});

describe('auditArticle: links as marked reads them, and slugs of any script (issues 11, 13)', () => {
  it('counts reference links and autolinks, not links inside code or email addresses', () => {
    const body = [
      'See [the guide][guide], <https://example.com/a> and www.example.org too.',
      '',
      '[guide]: /guides/sourdough',
      '',
      'Write to <ann@example.com>. `[not](a-link)`',
      '',
      '![loaf](https://example.com/loaf.jpg) and ![][pic]',
      '',
      '[pic]: https://example.com/pic.jpg',
    ].join('\n');
    const r = auditArticle({ ...base, bodyMarkdown: body });
    expect(r.stats).toMatchObject({ internalLinks: 1, externalLinks: 2, images: 2, imagesWithoutAlt: 1 });
    expect(check(r, 'links')).toMatchObject({ passed: true, message: '1 internal and 2 external links' });
  });

  it('keyword_in_slug needs the keyword in the slug, compared in derived form, and never passes on a keyword with no letters', () => {
    expect(check(auditArticle({ ...base, focusKeyword: '☕☕' }), 'keyword_in_slug')).toMatchObject({
      passed: false,
      message: 'The focus keyword "☕☕" has no letters or digits to put in a slug; choose a keyword made of words',
    });
    expect(check(auditArticle({ ...base, focusKeyword: 'サワードウ' }), 'keyword_in_slug')).toMatchObject({ passed: false, message: 'Use a slug containing "サワードウ"' });
    expect(check(auditArticle({ ...base, slug: 'サワードウ-入門', focusKeyword: 'サワードウ'.normalize('NFD') }), 'keyword_in_slug').passed).toBe(true);
    expect(check(auditArticle({ ...base, slug: 'crème-brûlée-maison', focusKeyword: 'Creme Brulee' }), 'keyword_in_slug').passed).toBe(true);
  });
});
