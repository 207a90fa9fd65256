import { type AppError, toAppError } from '../errors.js';
import type { Clock } from './clock.js';
import type { Logger } from './log.js';

interface Reporter {
  log: Logger;
  clock: Clock;
}

export const OUTAGE_LOG_EVERY_MS = 10_000;

interface Outage {
  /** When the next line may be written. */
  next: number;
  /** Failures since the last line. */
  failures: number;
  /** Failures since the outage began, and when it began. */
  total: number;
  since: number;
  failure: string;
}

// Per logger: an app and the contexts its jobs get share one, so they count one outage.
const outages = new WeakMap<Logger, Map<string, Outage>>();

/** A dependency that cannot serve (503 `unavailable`, `database_corrupt`): its name, else null. */
const dependencyOf = (e: AppError): string | null => (e.status >= 500 && typeof e.details?.dependency === 'string' ? e.details.dependency : null);

/**
 * How a failure on our side is logged, the same on every surface and job: a bug with its stack;
 * a dependency that cannot serve without one, as one warning per dependency every 10 s counting
 * the failures meanwhile and naming their class, since an outage fails every request and every
 * tick and a line each would flood the log. The first success afterwards logs one line
 * (dependencyAnswered). Client errors (4xx) are not ours to log.
 */
export function logFailure(app: Reporter, err: unknown, e: AppError, requestId: string | undefined, what: string, fields: Record<string, unknown> = {}): void {
  if (e.status < 500) return;
  const dependency = dependencyOf(e);
  if (!dependency) {
    app.log.error({ err, requestId, ...fields }, what);
    return;
  }
  let seen = outages.get(app.log);
  if (!seen) outages.set(app.log, (seen = new Map()));
  const now = app.clock.now().getTime();
  const failure = String(e.details?.failure ?? e.code);
  const outage = seen.get(dependency) ?? { next: 0, failures: 0, total: 0, since: now, failure };
  outage.failures += 1;
  outage.total += 1;
  seen.set(dependency, outage);
  if (now < outage.next && failure === outage.failure) return;
  outage.failure = failure;
  app.log.warn(
    { dependency, failure, code: e.code, reason: e.message, failures: outage.failures, intervalMs: OUTAGE_LOG_EVERY_MS, what, requestId, ...fields },
    `${dependency} unavailable (${failure}): ${outage.failures} failure${outage.failures === 1 ? '' : 's'} since the last line`,
  );
  outage.next = now + OUTAGE_LOG_EVERY_MS;
  outage.failures = 0;
}

/** A background job's failure (a tick, a cleanup): logged like a request's, 4xx included as bugs. */
export function logJobFailure(app: Reporter, err: unknown, what: string, fields: Record<string, unknown> = {}): void {
  const e = toAppError(err);
  if (e.status < 500) app.log.error({ err, ...fields }, what);
  else logFailure(app, err, e, undefined, what, fields);
}

/** Classes that refuse writes while reads are still served: only an answered write ends them. */
const WRITES_REFUSED = new Set(['read_only', 'busy', 'disk_full']);

/**
 * `dependency` answered (`wrote`: a statement that changes something): the end of its outage, if
 * one was open, is logged once. A read answered while writes are refused ends nothing, or each
 * request would log an end and a start.
 */
export function dependencyAnswered(app: Reporter, dependency: string, wrote: boolean): void {
  const outage = outages.get(app.log)?.get(dependency);
  if (!outage || (!wrote && WRITES_REFUSED.has(outage.failure))) return;
  outages.get(app.log)!.delete(dependency);
  const ms = app.clock.now().getTime() - outage.since;
  app.log.info({ dependency, failures: outage.total, outageMs: ms }, `${dependency} available again after ${outage.total} failure${outage.total === 1 ? '' : 's'} over ${Math.round(ms / 1000)} s`);
}
