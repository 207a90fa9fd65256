import type { App } from '../app.js';
import { startScheduler } from './scheduler.js';
import { startWebhookWorker } from '../webhooks/worker.js';
import { startOAuthCleanup } from './oauth-cleanup.js';

export interface Job {
  /** Stop taking new work and wait for work in progress. */
  stop(): Promise<void>;
}

/** Background work of the daemon. Each job is started here so serve.ts reads top to bottom. */
export function startJobs(app: App): Job {
  const jobs: Job[] = [startScheduler(app)];
  jobs.push(startWebhookWorker(app));
  jobs.push(startOAuthCleanup(app));
  return {
    async stop() {
      for (const job of jobs.reverse()) await job.stop();
    },
  };
}
