import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { renderBody, renderMarkdown } from '../lib/markdown.js';
import { type AuditSite, auditArticle } from './audit.js';
import { withinLimits as checked } from './body-limits.js';

// A render worker (articles/renderer.ts): the body limits, marked and sanitize-html run here,
// never on the event loop that answers requests. One task at a time; the pool stops a task past
// its deadline.

type Body = { markdown: string; label: string };
type Call = { module: string; name: string; input: unknown };
type Audit = { article: Parameters<typeof auditArticle>[0]; site?: AuditSite };
const tasks: Record<string, (input: never) => unknown> = {
  body: ({ markdown, label }: Body) => checked(label, markdown, () => renderBody(markdown)),
  bodies: (list: Body[]) => ({ value: list.map(({ markdown, label }) => checked(label, markdown, () => renderBody(markdown))) }),
  markdown: ({ markdown, label }: Body) => checked(label, markdown, () => renderMarkdown(markdown)),
  audit: ({ article, site }: Audit) => checked(article.slug, article.bodyMarkdown, () => auditArticle(article, site)),
  // A pure function of another module (Renderer.callEach), loaded at its first call: a daemon's
  // workers load only what its tasks use.
  call: async ({ module, name, input }: Call) => ((await import(module)) as Record<string, (input: unknown) => unknown>)[name](input),
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
// A first render loads sanitize-html (a tenth of a second, more on a busy machine) before the pool
// starts counting a task's deadline: the body after a replaced worker is not refused for that.
renderBody('A *first* render.');
port.postMessage({ ready: true });
