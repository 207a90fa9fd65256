import type { Ctx } from '../context.js';
import { findConnector } from '../connectors/store.js';
import type { Workspace } from '../workspaces/types.js';
import { daemonStatus } from './heartbeat.js';
import { countByStatus, oldestPending } from './store.js';

export interface HealthFinding {
  level: 'ok' | 'warn' | 'fail';
  check: string;
  detail: string;
}

/** What `svc doctor` reports about webhooks: daemon running, disabled or failing webhooks, stuck queues. */
export async function webhookHealth(ctx: Ctx, workspaces: Workspace[]): Promise<HealthFinding[]> {
  const out: HealthFinding[] = [];
  const daemon = await daemonStatus(ctx);
  const now = ctx.clock.now().getTime();
  let anyPending = false;
  for (const ws of workspaces) {
    const c = await findConnector(ctx.db, ws.id, 'webhook');
    if (!c) continue;
    const check = `webhook of ${ws.name}`;
    const counts = await countByStatus(ctx.db, c.id);
    anyPending ||= counts.pending > 0;
    if (!c.enabled) out.push({ level: 'fail', check, detail: `disabled: ${c.disabledReason ?? 'no reason recorded'} (${counts.pending} events waiting)` });
    else if (c.failingSince) out.push({ level: 'warn', check, detail: `every delivery has failed since ${c.failingSince}; it is disabled after ${Math.round(ctx.config.webhooks.disableAfter / 3_600_000)} h (svc webhook deliveries --failed)` });
    else {
      const oldest = await oldestPending(ctx.db, c.id);
      const stale = oldest && now - Date.parse(oldest) > 60_000;
      out.push({ level: stale ? 'warn' : 'ok', check, detail: `${c.url}: ${counts.pending} pending${oldest ? ` (oldest from ${oldest})` : ''}, ${counts.failed} failed` });
    }
  }
  out.unshift(
    daemon.running
      ? { level: 'ok', check: 'daemon', detail: `running (pid ${daemon.daemons[0].pid} on ${daemon.daemons[0].host}, seen ${daemon.daemons[0].seenAt})` }
      : { level: anyPending ? 'warn' : 'ok', check: 'daemon', detail: `not running${anyPending ? ': webhook events wait until svc serve runs' : ''}` },
  );
  return out;
}
