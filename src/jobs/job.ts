/** A background job of the daemon, started by jobs/index.ts and stopped by `svc serve`. */
export interface Job {
  /**
   * Stop taking new work and wait for the work in progress. When `deadline` aborts first, the
   * work still in progress is given up: its leases are released so another daemon, or the next
   * start, takes it at once. Resolves true when everything in progress finished, false when
   * something was given up.
   */
  stop(deadline?: AbortSignal): Promise<boolean>;
}
