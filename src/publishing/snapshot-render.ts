import { withinLimits } from '../articles/body-limits.js';
import type { Article } from '../articles/types.js';
import { type PackedSnapshot, buildSnapshot, packSnapshot } from '../content/snapshot.js';
import { type RenderedBody, renderBody } from '../lib/markdown.js';
import type { Workspace } from '../workspaces/types.js';

/** An article to publish, with its workspace and the times of its first publish. */
export interface SnapshotInput {
  ws: Workspace;
  article: Article;
  publishedAt: string;
  updatedAt: string;
}

export interface RenderedSnapshot {
  body: RenderedBody;
  packed: PackedSnapshot;
}

/**
 * Each article's body rendered and its content snapshot built, serialised and deflated, as a first
 * publish at those times makes it: what the render workers run (Renderer.callEach) for a bulk
 * publish, so the thread that writes the batch only stores them.
 */
export const renderSnapshots = (list: SnapshotInput[]) => ({
  value: list.map(({ ws, article, publishedAt, updatedAt }) =>
    withinLimits(article.slug, article.bodyMarkdown, (): RenderedSnapshot => {
      const body = renderBody(article.bodyMarkdown);
      const publication = { articleId: article.id, connectorId: '', workspaceId: ws.id, firstPublishedAt: publishedAt, updatedAt, publishedUrl: null, lastError: null, lastErrorAt: null };
      return { body, packed: packSnapshot(buildSnapshot(ws, article, publication, body)) };
    }),
  ),
});
