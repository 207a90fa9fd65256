import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { auditArticleSpendingCredit } from '../../articles/credited.js';
import { urlPrefix } from '../../content/article-url.js';
import { type ToolEnv, gated, text } from '../result.js';
import { auditOutput } from './output.js';
import { articleRefInput, refOf } from './present.js';

export function registerAuditTool(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'audit_article',
    {
      title: 'Audit an article (on-page SEO)',
      description:
        'Run an on-page SEO audit of one article (by id or slug) and store its 0-100 seoScore. Checks: SEO title 30-60 characters, ' +
        'meta description 120-160, focus keyword set and present in the title, slug, first paragraph and a ## heading, ' +
        'heading structure (no extra H1, at least two ## sections, no skipped levels), word count (at least 90% of targetLength, ' +
        'or 300 words), alt text on every image, and at least one link (links to the site\'s own URLs count as internal). Each failed check says what to change. ' +
        'Warnings ([warn], not scored): links to articles of the site that do not exist or are not published, and other articles with the same focus keyword (any case, hyphens, plurals). ' +
        'Spends one `audits` credit. Needs `content`.',
      inputSchema: articleRefInput,
      outputSchema: auditOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'audit_article', scope: 'content', role: 'editor' }, async (args: { id?: string; slug?: string }) => {
      const { article, audit, auditedAt } = await auditArticleSpendingCredit(env.app, env.workspace, await refOf(env, args), urlPrefix(env.workspace));
      const lines = [...audit.checks.map((c) => `${c.passed ? '[pass]' : '[FAIL]'} ${c.label} (${c.weight}): ${c.message}`), ...audit.warnings.map((w) => `[warn] ${w}`)];
      const failed = audit.checks.filter((c) => !c.passed).length;
      const head = `SEO score ${audit.score}/100 for "${article.title}" (${article.slug}). ${failed ? `${failed} check${failed > 1 ? 's' : ''} failed.` : 'Every check passed.'} 1 audit credit spent.`;
      return text([head, ...lines].join('\n'), { articleId: article.id, slug: article.slug, seoScore: audit.score, auditedAt, checks: audit.checks, warnings: audit.warnings, stats: audit.stats });
    }),
  );
}
