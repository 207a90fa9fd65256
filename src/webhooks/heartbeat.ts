import { hostname } from 'node:os';
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
  // A daemon on this host whose process is gone (killed) is not running, even if its beat is recent.
  const daemons = (await liveHeartbeats(ctx.db, since)).filter((h) => h.host !== hostname() || processAlive(h.pid));
  return { running: daemons.length > 0, daemons };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
