import type { Ctx } from '../context.js';
import { findConnector } from '../connectors/store.js';
import type { Workspace } from '../workspaces/types.js';
import { describeHolder, describeLease, leases, seenHolders } from './heartbeat.js';
import { countByStatus, oldestPending } from './store.js';

export interface HealthFinding {
  level: 'ok' | 'warn' | 'fail';
  check: string;
  detail: string;
}

/**
 * What `svc doctor` reports about webhooks: the daemons it sees (alive, or gone
 * within the last day), events held by someone, disabled or failing webhooks, stuck queues.
 */
export async function webhookHealth(ctx: Ctx, workspaces: Workspace[]): Promise<HealthFinding[]> {
  const out: HealthFinding[] = [];
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
  for (const l of await leases(ctx)) out.push({ level: l.valid ? 'ok' : 'warn', check: 'lease', detail: describeLease(l) });

  const daemons = (await seenHolders(ctx)).filter((h) => h.kind === 'daemon');
  const alive = daemons.filter((d) => d.alive);
  const gone = daemons.filter((d) => !d.alive);
  out.unshift(
    ...alive.map((d) => ({ level: 'ok' as const, check: 'daemon', detail: `running: ${describeHolder(d)}` })),
    ...gone.map((d) => ({ level: 'warn' as const, check: 'daemon', detail: `${describeHolder(d)}; listed for a day, a clean stop removes it` })),
  );
  if (alive.length === 0) {
    out.unshift({ level: anyPending ? 'warn' : 'ok', check: 'daemon', detail: `not running${anyPending ? ': webhook events wait until svc serve runs' : ''}` });
  }
  return out;
}
