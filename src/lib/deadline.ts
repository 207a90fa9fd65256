/** A deadline as an AbortSignal: it aborts after `ms`, or at once when abort() is called. */
export interface Deadline {
  signal: AbortSignal;
  abort(): void;
  /** Clear the timer (the deadline is no longer needed). */
  dispose(): void;
}

export function deadlineAfter(ms: number): Deadline {
  const controller = new AbortController();
  // Not unref'd: the deadline itself keeps the process alive until it acts or is disposed.
  const timer = setTimeout(() => controller.abort(), ms);
  return {
    signal: controller.signal,
    abort: () => controller.abort(),
    dispose: () => clearTimeout(timer),
  };
}

/**
 * `work`'s value, or `late` when it has not settled `graceMs` after `signal` aborted: for steps
 * that should honour the deadline themselves, so a step that does not cannot hold the caller.
 */
export function settleWithin<T>(work: Promise<T>, signal: AbortSignal, graceMs: number, late: T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => resolve(late), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/**
 * `work`'s outcome, or `late()` thrown once `ms` passed without one: the caller stops waiting
 * (the work itself ends on its own deadline, e.g. the database's query timeout).
 */
export function within<T>(work: PromiseLike<T>, ms: number, late: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    Promise.resolve(work)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}
