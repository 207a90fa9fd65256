import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { renderBody, renderMarkdown } from '../lib/markdown.js';
import { type AuditSite, auditArticle } from './audit.js';
import { withinLimits as checked } from './body-limits.js';
import { ownThreadId } from '../lib/thread-cpu.js';

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

// On Linux each thread has its own nice value (setpriority on pid 0 is the calling thread): a
// render yields the CPU to the event loop that answers requests and to the thread that writes a
// bulk publish's transactions, and fills the cores they leave idle. On a busy machine a render
// gets a smaller share of the CPU (a quarter of a core against a nice-0 process that wants it
// all), which its deadline allows for ordinary bodies many times over.
const RENDER_NICE = 5;
if (process.platform === 'linux') {
  try {
    setPriority(0, Math.min(19, getPriority(0) + RENDER_NICE));
  } catch {
    // Not allowed here (a sandbox): rendering runs at the process's priority, as elsewhere.
  }
}

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
port.postMessage({ ready: true, tid: ownThreadId() });
