import { createRenderer } from './articles/renderer.js';
import { SearchSlots } from './content/search-slots.js';
import type { Config } from './config/schema.js';
import { databaseSettingsHint } from './config/load.js';
import { AppError } from './errors.js';
import type { Ctx } from './context.js';
import { type Db, closeDb, openDb, writerOf } from './db/connect.js';
import { isNewDatabase, migrateLatest } from './db/migrate.js';
import { servingDaemons } from './db/serving-daemons.js';
import { refuseMovedDatabase } from './db/moved.js';
// `svc migrate` manages migrations through the composition root (adapters do not import db/).
export { type MigrationStatus, breakingMigrations, isNewDatabase, migrateLatest, migrationStatus, rollbackLastBatch } from './db/migrate.js';
export { servingDaemons } from './db/serving-daemons.js';
// `svc serve` claims a SQLite database for one daemon before it binds its port.
export { type DaemonRecord, daemonsElsewhere, liveDaemons, recordDaemon } from './db/daemon-records.js';
export { claimDatabase } from './db/locks.js';
export { cannotReach, databaseIdentity, noSvcDatabase } from './db/errors.js';
import { type Clock, systemClock } from './lib/clock.js';
import { AppEvents } from './lib/events.js';
import { type Logger, createLogger } from './lib/log.js';
import { type Limits, createLimits } from './limits/index.js';
import { Metrics } from './lib/metrics.js';
import { dependencyAnswered } from './lib/failure-log.js';
import { closeIdleConnections } from './webhooks/http-post.js';
import { pendingTotals } from './webhooks/store.js';
import { usageThisMonth } from './workspaces/usage.js';

/** The composition root: one per process (daemon or CLI command). */
export interface App extends Ctx {
  /** Closers run in reverse order of registration by close(). */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
  /** The rate limits and throttles, shared with every daemon on the same store (limits/). */
  readonly limits: Limits;
  /**
   * The searches running at once, for every surface that searches (the content API's `q`, the MCP
   * tools' queries): one pool, so together they never hold more than half the database's connections.
   */
  readonly searches: SearchSlots;
}

export interface CreateAppOptions {
  config: Config;
  log?: Logger;
  clock?: Clock;
  db?: Db;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Called before migrating a database that has no migrations yet (a new one); what it throws refuses it. */
  beforeNewDatabase?: () => void;
}

export async function createApp(options: CreateAppOptions): Promise<App> {
  const { config } = options;
  const log = options.log ?? createLogger(config.logging.level);
  if (!options.db) refuseMovedDatabase(config);
  const db = options.db ?? openDb(config.database);
  const closers: Array<() => Promise<void> | void> = [];
  if (options.migrate !== false) {
    // A failed migration must not leave the pool open: the process would never exit.
    const guard = options.beforeNewDatabase;
    const applied = await (guard ? isNewDatabase(db).then((isNew) => isNew && guard()) : Promise.resolve())
      .then(() => migrateLatest(db, { log, daemons: () => servingDaemons(db, config) }))
      .catch(async (err) => {
      if (!options.db) await closeDb(db);
      // The database layer knows the connection, not where its settings came from: the hint names them.
      if (err instanceof AppError && err.code === 'database_unavailable') {
        throw new AppError(err.code, err.status, err.message, { details: err.details, cause: err.cause, expose: err.expose, hint: databaseSettingsHint(config) });
      }
      throw err;
    });
    if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
  }
  const events = new AppEvents();
  events.setMaxListeners(50);
  let closed = false;
  const clock = options.clock ?? systemClock;
  const metrics = new Metrics();
  const renderer = createRenderer(config.rendering);
  const limits = createLimits({ config, db, log, clock, events, metrics, renderer });
  closers.push(() => closeIdleConnections(config.webhooks)); // runs last: the worker, registered later, stops first
  closers.push(() => limits.close());
  closers.push(() => renderer.close());
  const app: App = {
    config,
    db,
    log,
    clock,
    events,
    limits,
    metrics,
    renderer,
    searches: new SearchSlots(Math.max(1, Math.floor(config.database.poolMax / 2)), config.content.searchConcurrency, config.content.searchWait),
    onClose: (fn) => closers.push(fn),
    async close() {
      if (closed) return;
      closed = true;
      for (const fn of closers.reverse()) await fn();
      events.removeAllListeners();
      if (!options.db) await closeDb(db);
    },
  };
  // The end of a database outage is logged once, at the first statement answered (lib/failure-log.ts).
  for (const handle of new Set([db, writerOf(db)])) {
    handle.on('query-response', (_res: unknown, query: { method?: string; sql?: string }) => dependencyAnswered(app, 'database', changes(query)));
  }
  metrics.sampleAtScrape(
    async () => {
      const [queue, credits] = await Promise.all([pendingTotals(db), usageThisMonth(app)]);
      const age = queue.oldestCreatedAt ? Math.max(0, (clock.now().getTime() - Date.parse(queue.oldestCreatedAt)) / 1000) : 0;
      return { webhookQueueDepth: queue.pending, webhookOldestPendingSeconds: age, creditsUsed: credits };
    },
    (err) => log.warn({ err }, 'metrics: the database figures could not be read'),
  );
  return app;
}

/** Whether a statement knex answered changes something (not a read). */
function changes(query: { method?: string; sql?: string }): boolean {
  if (query.method === 'select' || query.method === 'first' || query.method === 'pluck') return false;
  return !/^\s*(select|with|pragma|show)\b/i.test(query.sql ?? '');
}
