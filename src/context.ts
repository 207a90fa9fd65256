import type { Renderer } from './articles/renderer.js';
import type { Config } from './config/schema.js';
import type { Db } from './db/connect.js';
import type { Clock } from './lib/clock.js';
import type { AppEvents } from './lib/events.js';
import type { Logger } from './lib/log.js';
import type { Metrics } from './lib/metrics.js';

/**
 * What every service function receives: the database, the validated config, a clock,
 * a logger, the in-process event bus, the app's Prometheus instruments and the markdown renderer
 * (worker threads). Built once by app.ts; never a global.
 */
export interface Ctx {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: AppEvents;
  readonly metrics: Metrics;
  readonly renderer: Renderer;
}
