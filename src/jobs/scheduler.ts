import type { App } from '../app.js';
import { publishDueArticles } from '../publishing/publish.js';
import { getWorkspace } from '../workspaces/service.js';
import type { Job } from './job.js';
import { logJobFailure } from '../lib/failure-log.js';

/**
 * Every `scheduler.interval`: publish scheduled articles whose time has come (within a few
 * seconds of scheduledAt, once: publishArticle claims the row).
 */
export function startScheduler(app: App): Job {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const at = app.clock.now().toISOString();
    running = publishDueArticles(app, (id) => getWorkspace(app, id))
      // Observable, so tests prove "nothing was due" over whole ticks instead of sleeping.
      .then((published) => app.events.emit('scheduler.ticked', { at, published }))
      .catch((err) => logJobFailure(app, err, 'scheduler tick failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, app.config.scheduler.interval);
      });
  };
  let timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      return true;
    },
  };
}
