import type { App } from '../app.js';
import { publishDueArticles } from '../publishing/publish.js';
import { getWorkspace } from '../workspaces/service.js';
import { type Job, repeating } from './job.js';
import { logJobFailure } from '../lib/failure-log.js';

/**
 * Every `scheduler.interval`: publish scheduled articles whose time has come (within a few
 * seconds of scheduledAt, once: publishArticle claims the row).
 */
export function startScheduler(app: App): Job {
  return repeating(0, () => app.config.scheduler.interval, () => {
    const at = app.clock.now().toISOString();
    return publishDueArticles(app, (id) => getWorkspace(app, id))
      // Observable, so tests prove "nothing was due" over whole ticks instead of sleeping.
      .then((published) => app.events.emit('scheduler.ticked', { at, published }))
      .catch((err) => logJobFailure(app, err, 'scheduler tick failed'));
  });
}
