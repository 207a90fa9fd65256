import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { publishedArticle, publishedFrontMatter, publishedIndex } from '../content/published.js';
import { withFrontMatter } from '../imports/front-matter.js';
import { scopeRefusal } from '../auth/scopes.js';
import { AppError, toAppError } from '../errors.js';
import type { ToolEnv } from './result.js';
import { INVALID_PARAMS, REFUSED, RESOURCE_NOT_FOUND, RpcError } from './rpc-error.js';

const MAX_LISTED = 200;

/**
 * Published articles as resources `article://<slug>` (Markdown), readable with the `read` scope:
 * the published snapshot, exactly what the content API serves (docs/mcp.md). A draft has none.
 */
export function registerArticleResources(server: McpServer, env: ToolEnv): void {
  const requireRead = () => {
    if (!env.principal.scopes.includes('read')) throw new RpcError(REFUSED, scopeRefusal('read'), { code: 'scope_not_granted' });
  };
  server.registerResource(
    'published-article',
    new ResourceTemplate('article://{slug}', {
      list: async () => {
        requireRead();
        const page = await publishedIndex(env.app, env.workspace.id, MAX_LISTED);
        return {
          resources: page.articles.map((a) => ({
            uri: `article://${encodeURIComponent(a.slug)}`, // a valid URI for slugs of any script
            name: a.slug,
            title: a.title,
            description: a.metaDescription || undefined,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    { title: 'Published article', description: 'A published article of the workspace as Markdown, by slug.', mimeType: 'text/markdown' },
    async (uri, variables) => {
      requireRead();
      const slug = decodeSlug(String(variables.slug ?? ''));
      try {
        const a = await publishedArticle(env.app, env.workspace.id, slug);
        if (!a) throw new AppError('not_found', 404, `No published article "${slug}"`);
        // The snapshot's markdown is the body without its leading H1: the title is the one H1.
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: withFrontMatter(publishedFrontMatter(a), `# ${a.title}\n\n${a.markdown}`) }] };
      } catch (err) {
        if (err instanceof RpcError) throw err;
        const e = toAppError(err);
        if (e.code === 'not_found') throw new RpcError(RESOURCE_NOT_FOUND, `No published article "${slug}"`, { uri: uri.href });
        if (e.status < 500) throw new RpcError(INVALID_PARAMS, e.message, { uri: uri.href });
        if (e.status >= 500 && e.details?.dependency) {
          env.onUnavailable?.(e);
          throw new RpcError(REFUSED, e.message, { uri: uri.href, code: e.code, ...e.details });
        }
        // The SDK would echo the message: keep internals in the log.
        env.app.log.error({ err, slug }, 'MCP resource read failed');
        throw new RpcError(ErrorCode.InternalError, 'Internal error');
      }
    },
  );
}

function decodeSlug(raw: string): string {
  let slug: string;
  try {
    slug = decodeURIComponent(raw);
  } catch {
    throw new RpcError(INVALID_PARAMS, 'The article URI is not valid percent-encoding');
  }
  // Refused here, so SQLite and PostgreSQL (which cannot store it) answer alike.
  if (slug.includes('\u0000')) throw new RpcError(INVALID_PARAMS, 'Text may not contain the NUL character (U+0000)');
  return slug;
}
