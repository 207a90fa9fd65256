import type { Ctx } from '../context.js';
import { liveHeartbeats } from './store.js';

/** How often a running webhook worker refreshes its heartbeat row. */
export const HEARTBEAT_EVERY_MS = 5_000;

/** A heartbeat younger than this means a daemon is running (three missed beats, or three polls). */
const freshFor = (ctx: Ctx) => Math.max(3 * HEARTBEAT_EVERY_MS, 3 * ctx.config.webhooks.pollInterval);

export interface DaemonStatus {
  running: boolean;
  daemons: Array<{ id: string; pid: number; host: string; seenAt: string }>;
}

/** Whether some daemon sharing this database is working the outbox right now. */
export async function daemonStatus(ctx: Ctx): Promise<DaemonStatus> {
  const since = new Date(ctx.clock.now().getTime() - freshFor(ctx)).toISOString();
  const daemons = await liveHeartbeats(ctx.db, since);
  return { running: daemons.length > 0, daemons };
}
