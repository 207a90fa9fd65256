import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { DurationHistogram } from './duration-histogram.js';
import { LabelSlots } from './label-slots.js';

/** prom-client defaults that are gauges named `_total`: dropped so /metrics passes `promtool check metrics`. */
export const DROPPED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** How long a scrape waits for the database figures (Prometheus' default scrape timeout is 10 s). */
const SAMPLE_TIMEOUT_MS = 3000;

/** What is read from the database at each scrape, so the figures are true across daemons. */
export interface ScrapeSamples {
  webhookQueueDepth: number;
  /** Seconds since the oldest pending event was written; 0 when none is pending. */
  webhookOldestPendingSeconds: number;
  /** Credits used this calendar month (UTC) by kind, summed over workspaces. */
  creditsUsed: Record<string, number>;
}

/**
 * The Prometheus instruments of one app (docs/monitoring.md lists them). A registry per app,
 * never prom-client's global one: tests run several apps in one process. Labels hold only
 * values from a bounded set written in our code (route patterns, tool names, outcomes), never a
 * key, a slug or anything else a client sends.
 */
export class Metrics {
  readonly registry = new Registry();
  private processMetrics = false;

  // The two counters every cached content request moves: counted in plain numbers, added at each read (CounterTally).
  private readonly requestTally = new CounterTally(['method', 'route', 'status']);
  private readonly lookupTally = new CounterTally(['kind', 'result']);

  readonly httpRequests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'] as const, registers: [this.registry], collect: this.requestTally.collect() });
  // Observed on every request: counted in plain numbers, rendered as prom-client would (DurationHistogram).
  readonly httpDuration = new DurationHistogram(
    'svc_http_request_duration_seconds',
    'Time from a request arriving to its answer being handed to Node, by method and route pattern',
    ['method', 'route'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    this.registry,
  );
  readonly rateLimited = new Counter({ name: 'svc_rate_limited_total', help: 'Requests refused with 429 (content API per key, MCP calls, sign-in attempts), by route pattern', labelNames: ['route'] as const, registers: [this.registry] });
  readonly contentCache = new Counter({ name: 'svc_content_cache_requests_total', help: 'Content API responses looked up in the memory cache, by route kind and result (hit, miss)', labelNames: ['kind', 'result'] as const, registers: [this.registry], collect: this.lookupTally.collect() });
  readonly contentCompressions = new Counter({ name: 'svc_content_compressions_total', help: 'Cached content API responses compressed (once per entry and encoding), by encoding', labelNames: ['encoding'] as const, registers: [this.registry] });
  readonly mcpToolCalls = new Counter({ name: 'svc_mcp_tool_calls_total', help: 'MCP tool calls, by tool and outcome (ok, error, refused, internal_error)', labelNames: ['tool', 'outcome'] as const, registers: [this.registry] });
  readonly webhookDeliveries = new Counter({ name: 'svc_webhook_deliveries_total', help: 'Webhook delivery attempts of this daemon, by outcome (delivered, retry, failed, lease_lost)', labelNames: ['outcome'] as const, registers: [this.registry] });
  // Read from the database by collect() at each scrape; one read serves the three gauges.
  private readonly queueDepth = new Gauge({ name: 'svc_webhook_queue_depth', help: 'Webhook events pending delivery, all daemons (read from the database at scrape time; NaN when it did not answer)', registers: [this.registry], collect: this.collector((g, s) => g.set(s ? s.webhookQueueDepth : NaN)) });
  private readonly oldestPending = new Gauge({ name: 'svc_webhook_oldest_pending_age_seconds', help: 'Age of the oldest pending webhook event, 0 when none is pending (read at scrape time; NaN when the database did not answer)', registers: [this.registry], collect: this.collector((g, s) => g.set(s ? s.webhookOldestPendingSeconds : NaN)) });
  private readonly creditsUsed = new Gauge({
    name: 'svc_credits_used',
    help: 'Credits spent this calendar month (UTC) over all workspaces, by kind (read at scrape time)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: this.collector((g, s) => {
      g.reset();
      for (const [kind, n] of Object.entries(s?.creditsUsed ?? {})) g.set({ kind }, n);
    }),
  });
  private readonly scrapeErrors = new Counter({ name: 'svc_metrics_scrape_errors_total', help: 'Scrapes whose database figures could not be read', registers: [this.registry] });
  private sampler: (() => Promise<ScrapeSamples>) | null = null;
  private onSampleError: (err: unknown) => void = () => {};
  private current: Promise<ScrapeSamples | null> | null = null;

  /** One answered HTTP request (svc_http_requests_total). */
  countRequest(method: string, route: string, status: number): void {
    this.requestTally.inc(method, route, status);
  }

  /** One content response looked up in the memory cache (svc_content_cache_requests_total). */
  countCacheLookup(kind: string, hit: boolean): void {
    this.lookupTally.inc(kind, hit ? 'hit' : 'miss');
  }

  /** Register the function that reads the database figures at each scrape. */
  sampleAtScrape(fn: () => Promise<ScrapeSamples>, onError: (err: unknown) => void): void {
    this.sampler = fn;
    this.onSampleError = onError;
  }

  /** Node process figures (memory, CPU, event-loop lag, GC): only for an app that serves /metrics. */
  includeProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which promtool rejects; each is the sum of the gauge of the
    // same name without `_total`, by type (docs/monitoring.md: use sum(nodejs_active_handles)).
    for (const name of DROPPED_DEFAULTS) this.registry.removeSingleMetric(name);
  }

  /** The exposition text. A database that does not answer leaves its gauges NaN, not the scrape failed. */
  async render(): Promise<string> {
    this.current = this.readSamples();
    try {
      // Read before the registry collects: a failed read counts in this scrape's error counter,
      // which the registry may serialize before the gauges' collect() has seen the failure.
      await this.current;
      return await this.registry.metrics();
    } finally {
      this.current = null;
    }
  }

  private collector<G extends Gauge<string>>(apply: (gauge: G, samples: ScrapeSamples | null) => void): (this: G) => Promise<void> {
    const metrics = this;
    return async function (this: G) {
      apply(this, await (metrics.current ?? metrics.readSamples()));
    };
  }

  private async readSamples(): Promise<ScrapeSamples | null> {
    if (!this.sampler) return null;
    let timer: NodeJS.Timeout | undefined;
    // A database that keeps the connection but does not answer must not hold the scrape (and
    // the process figures with it) until the scraper gives up.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${SAMPLE_TIMEOUT_MS / 1000} s`)), SAMPLE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.sampler(), late]);
    } catch (err) {
      this.scrapeErrors.inc();
      this.onSampleError(err);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * A counter's increments as plain numbers per label values (LabelSlots), added to the counter
 * whenever it is read (its collect hook runs on every scrape and every get()).
 */
class CounterTally {
  private readonly slots: LabelSlots<{ labels: Record<string, string>; n: number }>;

  constructor(labelNames: readonly string[]) {
    this.slots = new LabelSlots(labelNames, (labels) => ({ labels, n: 0 }));
  }

  inc(a: string, b: string | number, c: string | number = ''): void {
    this.slots.get(a, b, c).n++;
  }

  /** The collect hook of the counter this tallies for. */
  collect(): (this: Counter<string>) => void {
    const slots = this.slots.all;
    return function (this: Counter<string>) {
      for (const slot of slots) {
        if (slot.n === 0) continue;
        this.inc(slot.labels, slot.n);
        slot.n = 0;
      }
    };
  }
}
