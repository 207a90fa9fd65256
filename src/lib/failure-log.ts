import type { AppError } from '../errors.js';
import type { Clock } from './clock.js';
import type { Logger } from './log.js';

interface Reporter {
  log: Logger;
  clock: Clock;
}

const OUTAGE_LOG_EVERY_MS = 10_000;
const outages = new WeakMap<Reporter, Map<string, { next: number; answered: number }>>();

/**
 * How a request that failed on our side is logged, the same on every surface: a bug (a 5xx
 * not meant for the client) with its stack; a dependency that is down (503 `unavailable`) as
 * one warning per dependency every 10 s, counting the requests answered 503 meanwhile, since an
 * outage answers every request so and a line each would flood the log.
 */
export function logFailure(app: Reporter, err: unknown, e: AppError, requestId: string | undefined, what: string, fields: Record<string, unknown> = {}): void {
  if (e.status < 500) return;
  if (!e.expose) {
    app.log.error({ err, requestId, ...fields }, what);
    return;
  }
  const dependency = String(e.details?.dependency ?? e.code);
  let seen = outages.get(app);
  if (!seen) outages.set(app, (seen = new Map()));
  const now = app.clock.now().getTime();
  const state = seen.get(dependency) ?? { next: 0, answered: 0 };
  state.answered += 1;
  seen.set(dependency, state);
  if (now < state.next) return;
  app.log.warn({ dependency, code: e.code, reason: e.message, requestId, ...fields, answered: state.answered }, `${dependency} unavailable: requests answered ${e.status}`);
  state.next = now + OUTAGE_LOG_EVERY_MS;
  state.answered = 0;
}
