import type { App } from '../app.js';
import { startWebhookWorker } from '../webhooks/worker.js';
import type { Job } from './job.js';
import { startCleanup } from './cleanup.js';
import { startScheduler } from './scheduler.js';

export type { Job } from './job.js';

/**
 * Background work of the daemon. Each job is started here so serve.ts reads top to bottom. The webhook worker
 * writes the daemon's heartbeat row first (its ready); the scheduler and the cleanup start only once it is written:
 * nothing of a daemon the upgrade guard does not see yet changes the database, and a start whose first beat fails
 * has published nothing.
 */
export function startJobs(app: App): Job {
  const worker = startWebhookWorker(app);
  let scheduler: Job | undefined;
  let cleanup: Job | undefined;
  let stopping = false;
  return {
    ready: (worker.ready ?? Promise.resolve()).then(() => {
      if (stopping) return;
      scheduler = startScheduler(app);
      cleanup = startCleanup(app);
    }),
    async stop(deadline) {
      stopping = true;
      let finished = true;
      for (const job of [cleanup, worker, scheduler]) if (job && !(await job.stop(deadline))) finished = false;
      return finished;
    },
  };
}
