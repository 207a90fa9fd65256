import type { App } from '../app.js';
import { startWebhookWorker } from '../webhooks/worker.js';
import type { Job } from './job.js';
import { startCleanup } from './cleanup.js';
import { startScheduler } from './scheduler.js';

export type { Job } from './job.js';

/** Background work of the daemon. Each job is started here so serve.ts reads top to bottom. */
export function startJobs(app: App): Job {
  const jobs: Job[] = [startScheduler(app)];
  jobs.push(startWebhookWorker(app));
  jobs.push(startCleanup(app));
  return {
    ready: Promise.all(jobs.map((job) => job.ready)).then(() => undefined),
    async stop(deadline) {
      let finished = true;
      for (const job of jobs.reverse()) if (!(await job.stop(deadline))) finished = false;
      return finished;
    },
  };
}
