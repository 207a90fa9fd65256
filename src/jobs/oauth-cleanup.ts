import type { App } from '../app.js';
import { purgeExpiredSessions } from '../auth/sessions.js';
import { purgeUnusedClients } from '../oauth/clients.js';
import { purgeExpired } from '../oauth/connections.js';
import type { Job } from './job.js';
import { logJobFailure } from '../lib/failure-log.js';

const EVERY_MS = 60_000;

/**
 * Every minute: remove OAuth clients that never got a grant within oauth.unusedClientExpiry
 * (decisions.md), and expired sessions, pending consent requests, codes and access tokens.
 */
export function startOAuthCleanup(app: App): Job {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = (async () => {
      const removed = await purgeUnusedClients(app);
      if (removed > 0) app.log.info({ removed }, 'removed OAuth clients that never got a grant');
      await purgeExpired(app);
      await purgeExpiredSessions(app);
    })()
      .catch((err) => logJobFailure(app, err, 'oauth cleanup failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, Math.min(EVERY_MS, Math.max(1000, app.config.oauth.unusedClientExpiry)));
      });
  };
  let timer = setTimeout(tick, 1000);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      return true;
    },
  };
}
