import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { renderBody, renderMarkdown } from '../lib/markdown.js';
import { type AuditSite, auditArticle } from './audit.js';
import { assertRenderable } from './body-limits.js';
import type { Checked, SnapshotTask } from './renderer.js';
import { buildSnapshot, packSnapshot } from '../content/snapshot.js';
import type { Workspace } from '../workspaces/types.js';
import type { PostFile } from '../imports/post-reader.js';

// A render worker (articles/renderer.ts): the body limits, marked and sanitize-html run here,
// never on the event loop that answers requests. One task at a time; the pool stops a task past
// its deadline.

/** `work` of a body within the limits; a body beyond them is refused by name without marked. */
function checked<T>(label: string, markdown: string, work: () => T): Checked<T> {
  try {
    assertRenderable(label, markdown);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { refused: { code: err.code, status: err.status, message: err.message, hint: err.hint, details: err.details } };
  }
  return { value: work() };
}

type Body = { markdown: string; label: string };
type Snapshots = { ws: Workspace; list: SnapshotTask[] };
type Audit = { article: Parameters<typeof auditArticle>[0]; site?: AuditSite };
const tasks: Record<string, (input: never) => unknown> = {
  body: ({ markdown, label }: Body) => checked(label, markdown, () => renderBody(markdown)),
  bodies: (list: Body[]) => ({ value: list.map(({ markdown, label }) => checked(label, markdown, () => renderBody(markdown))) }),
  snapshots: ({ ws, list }: Snapshots) => ({
    value: list.map(({ article, publishedAt, updatedAt }) =>
      checked(article.slug, article.bodyMarkdown, () => {
        const body = renderBody(article.bodyMarkdown);
        const publication = { articleId: article.id, connectorId: '', workspaceId: ws.id, firstPublishedAt: publishedAt, updatedAt, publishedUrl: null, lastError: null, lastErrorAt: null };
        return { packed: packSnapshot(buildSnapshot(ws, article, publication, body)), body };
      }),
    ),
  }),
  markdown: ({ markdown, label }: Body) => checked(label, markdown, () => renderMarkdown(markdown)),
  audit: ({ article, site }: Audit) => checked(article.slug, article.bodyMarkdown, () => auditArticle(article, site)),
  // Loaded at an import's first task: a daemon's workers never need the readers.
  posts: async (list: PostFile[]) => {
    const { readPost } = await import('../imports/post-reader.js');
    return { value: list.map(readPost) };
  },
};

const port = parentPort!;
const failed = (err: unknown) => port.postMessage({ error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
port.on('message', ({ task, input }: { task: string; input: never }) => {
  try {
    const value = tasks[task](input);
    if (value instanceof Promise) value.then((v) => port.postMessage({ value: v }), failed);
    else port.postMessage({ value });
  } catch (err) {
    failed(err);
  }
});
port.postMessage({ ready: true });
