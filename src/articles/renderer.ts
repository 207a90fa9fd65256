import { availableParallelism } from 'node:os';
import type { Config } from '../config/schema.js';
import { AppError, unavailable } from '../errors.js';
import type { RenderedBody } from '../lib/markdown.js';
import { TaskFailure, WorkerPool } from '../lib/worker-pool.js';
import type { AuditSite, auditArticle } from './audit.js';

/**
 * Everything svc derives from a markdown body, computed in worker threads (never on the event
 * loop that answers requests) under `rendering.timeout`, after the body limits (body-limits.ts),
 * which the worker checks first.
 */
export interface Renderer {
  /**
   * HTML, outline, word count, FAQ and excerpt in one pass; `label` names the article in refusals.
   * `holdingLock`: the caller waits holding a lock (a transaction, a webhook event's lease), so
   * the render goes ahead of the renders queued and is stopped at its deadline in wall time even
   * when a busy machine gave it less CPU than that: the lock is never held longer than
   * rendering.timeout for it (WorkerPool.run).
   */
  body(markdown: string, label: string, opts?: RenderOptions): Promise<RenderedBody>;
  /**
   * body() of many bodies, 16 to a worker task when there are 16 for each worker or more (one
   * message each way instead of one per body). A task of several runs under the one deadline of a body: when it is stopped, or a body
   * is refused, the caller renders the bodies one by one to name the one at fault.
   */
  bodies(list: Array<{ markdown: string; label: string }>): Promise<RenderedBody[]>;
  /**
   * `name` of `module` (a pure function of a list, answering `{ value }` or a body's refusal for
   * each item) run in the workers under the one deadline, several items to a task as bodies()
   * groups them, for work that would otherwise hold the event loop.
   */
  callEach<I, O>(module: URL, name: string, list: I[], labelOf: (item: I) => string): Promise<O[]>;
  /** body() of markdown whose title is already taken off (a webhook event's stored body). */
  markdown(markdown: string, label: string, opts?: RenderOptions): Promise<RenderedBody>;
  /**
   * body(), kept for the next call with the same `key` (an article id and version) and markdown:
   * draft previews render once per edit, not once per view. Concurrent calls share one render.
   */
  cachedBody(key: string, markdown: string, label: string): Promise<RenderedBody>;
  /** The SEO audit (articles/audit.ts), which reads the body's headings, words and links; `site` tells its own links apart. */
  audit(article: Parameters<typeof auditArticle>[0], site?: AuditSite): Promise<ReturnType<typeof auditArticle>>;
  /** Renders running now and started so far (the preview cache's and the deadline's tests watch them). */
  stats(): { running: number; started: number; peak: number; ready: number };
  close(): Promise<void>;
}

/** How a caller waits for a render (Renderer.body). */
export interface RenderOptions {
  holdingLock?: boolean;
}

/** A worker's answer: the task's value, or the body limits' refusal (body_too_complex) to throw as it is. */
export type Checked<T> = { value: T } | { refused: { code: string; status: number; message: string; hint?: string; details?: Record<string, unknown> } };

/** The value of a worker's answer, or its refusal thrown as the AppError the worker made. */
function unwrap<T>(out: Checked<T>): T {
  if ('refused' in out) throw new AppError(out.refused.code, out.refused.status, out.refused.message, { hint: out.refused.hint, details: out.refused.details });
  return out.value;
}

/**
 * Bodies to a worker task in bodies(): a message each way costs about as much CPU as a tenth of a
 * render, and 16 ordinary bodies take a few tens of milliseconds, far inside the deadline.
 */
const BODIES_PER_TASK = 16;

// Tests run the TypeScript sources, which a worker thread cannot load: there the worker, and what
// it calls, are the build's (npm test builds first, as the CLI tests need it too).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ROOT = new URL('../../', import.meta.url);
const runnable = (module: URL): string => (FROM_SOURCES ? new URL(`dist/${module.href.slice(ROOT.href.length).replace(/\.ts$/, '.js')}`, ROOT).href : module.href);
const WORKER = new URL(runnable(new URL('./render-worker.js', import.meta.url)));

export function createRenderer(config: Config['rendering']): Renderer {
  const workers = config.workers || availableParallelism();
  const pool = new WorkerPool({ file: WORKER, size: workers, timeoutMs: config.timeout });
  const run = async <T>(task: string, input: unknown, label: string, holdingLock?: boolean): Promise<T> => {
    let out: Checked<T>;
    try {
      out = (await pool.run(task, input, { holdingLock })) as Checked<T>;
    } catch (err) {
      if (!(err instanceof TaskFailure)) throw err;
      if (err.reason === 'timeout') {
        throw new AppError('render_timeout', 422, `Rendering the body of '${label}' took longer than ${config.timeout / 1000} s and was stopped. Simplify the body: shorter paragraphs, less emphasis, flatter lists.`, {
          hint: 'The operator sets the deadline with rendering.timeout in config.yaml (docs/content-api.md, "Rendering").',
          details: { timeoutMs: config.timeout },
        });
      }
      if (err.reason === 'start') throw unavailable('renderer', `svc's markdown renderer is unavailable: ${err.message}`, { cause: err });
      throw new AppError('render_failed', 422, `svc could not render the body of '${label}': ${err.message}`, { cause: err });
    }
    return unwrap(out);
  };
  const body = (markdown: string, label: string, task = 'body', opts: RenderOptions = {}) => run<RenderedBody>(task, { markdown, label }, label, opts.holdingLock);
  // A batch of a few goes one to a task, as body() would: every worker gets some at once.
  const inChunks = async <I, O>(list: I[], labelOf: (item: I) => string, task: (chunk: I[], label: string) => Promise<Array<Checked<O>>>): Promise<O[]> => {
    const per = list.length >= BODIES_PER_TASK * workers ? BODIES_PER_TASK : 1;
    const tasks: Array<Promise<Array<Checked<O>>>> = [];
    for (let i = 0; i < list.length; i += per) {
      const chunk = list.slice(i, i + per);
      tasks.push(task(chunk, chunk.length === 1 ? labelOf(chunk[0]) : `${labelOf(chunk[0])} (or one of the ${chunk.length - 1} bodies rendered with it)`));
    }
    return (await Promise.all(tasks)).flat().map(unwrap);
  };
  const cache = new BodyCache(config.previewCacheBytes);
  return {
    body: async (markdown, label, opts) => body(markdown, label, 'body', opts),
    bodies: (list) => inChunks(list, (b) => b.label, (chunk, label) => run<Array<Checked<RenderedBody>>>('bodies', chunk, label)),
    callEach: <I, O>(module: URL, name: string, list: I[], labelOf: (item: I) => string) =>
      inChunks<I, O>(list, labelOf, (chunk, label) => run<Array<Checked<O>>>('call', { module: runnable(module), name, input: chunk }, label)),
    markdown: async (markdown, label, opts) => body(markdown, label, 'markdown', opts),
    cachedBody: (key, markdown, label) => cache.get(key, markdown, () => body(markdown, label)),
    audit: (article, site) => run<ReturnType<typeof auditArticle>>('audit', { article, site }, article.slug),
    stats: () => ({ running: pool.running, started: pool.started, peak: pool.peak, ready: pool.ready }),
    close: () => pool.close(),
  };
}

/** Rendered bodies by key, least recently used first out, within a budget of bytes (UTF-16: two a character). */
class BodyCache {
  private readonly entries = new Map<string, { source: string; body: Promise<RenderedBody>; size: number }>();
  private used = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, source: string, render: () => Promise<RenderedBody>): Promise<RenderedBody> {
    const hit = this.entries.get(key);
    if (hit && hit.source === source) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    if (hit) this.drop(key);
    const entry = { source, body: render(), size: 0 };
    this.entries.set(key, entry);
    entry.body.then(
      (b) => {
        if (this.entries.get(key) !== entry) return;
        entry.size = 2 * (source.length + b.markdown.length + b.html.length + b.excerpt.length);
        this.used += entry.size;
        for (const [k] of this.entries) {
          if (this.used <= this.maxBytes) break;
          this.drop(k);
        }
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.body;
  }

  private drop(key: string): void {
    this.used -= this.entries.get(key)?.size ?? 0;
    this.entries.delete(key);
  }
}
