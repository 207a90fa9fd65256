import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { getArticle, listArticles } from '../articles/service.js';
import { scopeRefusal } from '../auth/scopes.js';
import { AppError, toAppError } from '../errors.js';
import type { ToolEnv } from './result.js';
import { INVALID_PARAMS, REFUSED, RESOURCE_NOT_FOUND, RpcError } from './rpc-error.js';

const MAX_LISTED = 200;

/** Published articles as resources `article://<slug>` (Markdown), readable with the `read` scope. */
export function registerArticleResources(server: McpServer, env: ToolEnv): void {
  const requireRead = () => {
    if (!env.principal.scopes.includes('read')) throw new RpcError(REFUSED, scopeRefusal('read'), { code: 'scope_not_granted' });
  };
  server.registerResource(
    'published-article',
    new ResourceTemplate('article://{slug}', {
      list: async () => {
        requireRead();
        const page = await listArticles(env.app, env.workspace, { status: 'published', limit: MAX_LISTED });
        return {
          resources: page.articles.map((a) => ({
            uri: `article://${encodeURIComponent(a.slug)}`, // a valid URI for slugs of any script
            name: a.slug,
            title: a.title,
            description: a.metaDescription ?? undefined,
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
        const a = await getArticle(env.app, env.workspace, slug);
        if (a.status !== 'published') throw new AppError('not_found', 404, `No published article "${slug}"`);
        const front = [`title: ${a.title}`, `slug: ${a.slug}`, `focusKeyword: ${a.focusKeyword ?? ''}`, `metaDescription: ${a.metaDescription ?? ''}`, `seoScore: ${a.seoScore ?? ''}`];
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: `---\n${front.join('\n')}\n---\n# ${a.title}\n\n${a.bodyMarkdown}` }] };
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
