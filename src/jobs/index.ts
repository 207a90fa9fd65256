import type { App } from '../app.js';
import { startHolder } from '../webhooks/lease.js';
import { startWebhookWorker } from '../webhooks/worker.js';
import type { Job } from './job.js';
import { startCleanup } from './cleanup.js';
import { startScheduler } from './scheduler.js';

export type { Job } from './job.js';

/**
 * Background work of the daemon. Each job is started here so serve.ts reads top to bottom. The daemon's heartbeat row
 * is written first (rejects when it cannot be): a daemon the upgrade guard (db/serving-daemons.ts) does not see yet
 * changes nothing, and a start whose first beat fails has run no job.
 */
export async function startJobs(app: App): Promise<Job> {
  const holder = await startHolder(app, 'daemon');
  const jobs = [startScheduler(app), startWebhookWorker(app, holder), startCleanup(app)];
  return {
    async stop(deadline) {
      let finished = true;
      for (const job of jobs.reverse()) if (!(await job.stop(deadline))) finished = false;
      return finished;
    },
  };
}
