import { logJobFailure } from '../lib/failure-log.js';
import type { App } from '../app.js';
import { purgeExpiredSessions } from '../auth/sessions.js';
import type { Ctx } from '../context.js';
import { purgeUnusedClients } from '../oauth/clients.js';
import { purgeExpired } from '../oauth/connections.js';
import { type RetentionCursors, purgeSettledWebhooks } from '../webhooks/retention.js';
import { type Job, repeating } from './job.js';

const EVERY_MS = 60_000;

export interface CleanupResult {
  oauthClients: number;
  sessions: number;
  oauth: Awaited<ReturnType<typeof purgeExpired>>;
  webhooks: Awaited<ReturnType<typeof purgeSettledWebhooks>>;
}

/**
 * One round of the cleanup that keeps the tables bounded: OAuth clients that never got a grant
 * within oauth.unusedClientExpiry (decisions.md), expired sessions, consent requests, codes and
 * access tokens, rotated refresh tokens, and settled webhook events and delivery log entries
 * past webhooks.retention. Every delete goes by an index, in bounded batches: a large backlog
 * is worked off over several rounds.
 */
export async function runCleanup(ctx: Ctx, cursors: RetentionCursors = {}): Promise<CleanupResult> {
  const oauthClients = await purgeUnusedClients(ctx);
  const oauth = await purgeExpired(ctx);
  const sessions = await purgeExpiredSessions(ctx);
  const webhooks = await purgeSettledWebhooks(ctx, cursors);
  return { oauthClients, sessions, oauth, webhooks };
}

/** Every minute (sooner when oauth.unusedClientExpiry is shorter): runCleanup. */
export function startCleanup(app: App): Job {
  const cursors: RetentionCursors = {};
  return repeating(1000, () => Math.min(EVERY_MS, Math.max(1000, app.config.oauth.unusedClientExpiry)), () =>
    runCleanup(app, cursors)
      .then((r) => {
        if (r.oauthClients > 0) app.log.info({ removed: r.oauthClients }, 'removed OAuth clients that never got a grant');
        if (r.webhooks.events + r.webhooks.deliveries + r.webhooks.snapshots > 0) app.log.info(r.webhooks, 'removed webhook events and delivery log entries past webhooks.retention, and the snapshots of superseded events');
      })
      .catch((err) => logJobFailure(app, err, 'cleanup failed')),
  );
}
