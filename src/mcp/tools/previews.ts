import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createPreview, revokeArticlePreviews } from '../../publishing/previews.js';
import { type ToolEnv, gated, text } from '../result.js';
import { toolInput } from '../tool-input.js';
import { previewOutput } from './output.js';
import { ARTICLE_REF, articleRef, refOf } from './present.js';

const PREVIEW = toolInput(
  'arguments',
  { ...articleRef, expiresInMinutes: z.number().int().min(1).max(60 * 24 * 30).optional(), revoke: z.boolean().optional() },
  {
    ...ARTICLE_REF,
    expiresInMinutes: 'How long the link works, in minutes (1 to 43200). Default: the installation\'s content.previewTtl (24 hours).',
    revoke: 'true: revoke every preview link of the article instead of making one.',
  },
);

/**
 * preview_article: a link showing the article's current draft on the live site, to that site
 * only. Scope `content` (editor): it hands unpublished text to the site, which `read` alone
 * must not be able to do.
 */
export function registerPreviewTool(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'preview_article',
    {
      title: 'Preview an article on the site',
      description:
        "Make a preview link that shows the article's current draft (unpublished, or unpublished changes) on the workspace's site, " +
        'as a publish would show it, without publishing. The link works only through the site (its blog key) and expires (default 24 hours); ' +
        'pass revoke: true to end every link of the article. Needs `content`.',
      inputSchema: PREVIEW,
      outputSchema: previewOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    gated(env, { tool: 'preview_article', scope: 'content', role: 'editor' }, async (args: { id?: string; slug?: string; expiresInMinutes?: number; revoke?: boolean }) => {
      if (args.revoke) {
        const { article, revoked } = await revokeArticlePreviews(env.app, env.workspace, await refOf(env, args));
        return text(`Revoked ${revoked} preview link${revoked === 1 ? '' : 's'} of ${article.slug}.`, { articleId: article.id, slug: article.slug, revoked });
      }
      const grant = await createPreview(env.app, env.workspace, await refOf(env, args), { ttlMs: args.expiresInMinutes === undefined ? undefined : args.expiresInMinutes * 60_000 });
      const where = grant.url ?? `The workspace has no site URL: the site shows it at its article page with ?preview=${grant.token}`;
      return text(`Preview of ${grant.slug} until ${grant.expiresAt}:\n${where}`, { ...grant });
    }),
  );
}
