import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../articles/audit.js';
import { CONTENT_TYPE_NAMES } from '../articles/categories.js';

/** A prompt that walks an agent through writing an article that passes audit_article. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'write_seo_article',
    {
      title: 'Write an SEO article',
      description: 'Instructions for writing an article with create_article that passes audit_article, then auditing and fixing it.',
      argsSchema: {
        topic: z.string().describe('What the article is about'),
        focusKeyword: z.string().describe('The main search phrase to rank for'),
        contentType: z.string().optional().describe(`One of ${CONTENT_TYPE_NAMES.join(', ')} (default BLOG_POST)`),
        targetLength: z.string().optional().describe('Target word count (default 1200)'),
      },
    },
    ({ topic, focusKeyword, contentType, targetLength }) => {
      const words = Number.parseInt(targetLength ?? '', 10) > 0 ? Number.parseInt(targetLength!, 10) : 1200;
      const type = contentType?.toUpperCase() ?? 'BLOG_POST';
      const text = [
        `Write an SEO article about: ${topic}`,
        `Focus keyword: "${focusKeyword}". Content type: ${type}. Target length: ${words} words.`,
        '',
        '1. Call get_site_profile: check that you have the `content` scope and an article credit left, and note the site.',
        '2. Call create_article with:',
        `   - title containing "${focusKeyword}"; metaTitle of ${LIMITS.metaTitle[0]}-${LIMITS.metaTitle[1]} characters containing it;`,
        `   - metaDescription of ${LIMITS.metaDescription[0]}-${LIMITS.metaDescription[1]} characters containing it;`,
        `   - focusKeyword "${focusKeyword}", a few secondaryKeywords, contentType ${type}, targetLength ${words};`,
        '   - a slug containing the keyword (lower-case words joined by dashes);',
        `   - bodyMarkdown: no "# " heading (the title is the H1); a first paragraph that uses "${focusKeyword}";`,
        `     at least ${LIMITS.minH2} "## " sections (one of them naming the keyword), "### " only under a "##";`,
        `     at least ${Math.ceil(words * LIMITS.wordShare)} words; alt text on every image (![what it shows](https://...));`,
        '     at least one link to a related page or a source. A "## FAQ" section with "### Question?" headings is welcome.',
        '   - internal links: call find_link_targets with a topic word and link to the url of the articles it returns,',
        '     e.g. [how to grind coffee](https://example.com/blog/how-to-grind-coffee); never invent a URL for an article that is not published.',
        '3. Call audit_article with the new article id. Fix every [FAIL] line with update_article and audit again',
        '   (each audit spends one audit credit, so fix everything before re-auditing).',
        '4. Publish with publish_article only if the user asked for it and the connection has the `publish` scope.',
      ].join('\n');
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );
}
