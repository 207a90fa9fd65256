import { parentPort } from 'node:worker_threads';
import { renderBody, renderMarkdown } from '../lib/markdown.js';
import { type AuditSite, auditArticle } from './audit.js';

// A render worker (articles/renderer.ts): marked and sanitize-html run here, never on the event
// loop that answers requests. One task at a time; the pool stops a task past its deadline.
const tasks: Record<string, (input: never) => unknown> = { body: renderBody, markdown: renderMarkdown, audit: ({ article, site }: { article: Parameters<typeof auditArticle>[0]; site?: AuditSite }) => auditArticle(article, site) };

const port = parentPort!;
port.on('message', ({ task, input }: { task: string; input: never }) => {
  try {
    port.postMessage({ value: tasks[task](input) });
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
});
port.postMessage({ ready: true });
