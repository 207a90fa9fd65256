import type { Clock } from './clock.js';
import type { Logger } from './log.js';

/** "Last used" of a credential has a minute's precision: plenty for people and for idle expiry. */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * Record that a credential (API key, OAuth connection) was used now, at most once a minute, so a
 * busy agent does not cost a write per call. `write(at, staleBefore)` is the store's conditional
 * update (only where `last_used_at` is null or at most `staleBefore`), so parallel calls, in one
 * daemon or several, write the row once. A failed write is logged, never fails the call.
 */
export async function recordUse(
  ctx: { clock: Clock; log: Logger },
  lastUsedAt: string | null,
  write: (at: string, staleBefore: string) => Promise<unknown>,
  logFields: Record<string, unknown>,
): Promise<void> {
  const now = ctx.clock.now().getTime();
  const staleBefore = now - LAST_USED_PRECISION_MS;
  if (lastUsedAt && Date.parse(lastUsedAt) > staleBefore) return;
  await write(new Date(now).toISOString(), new Date(staleBefore).toISOString()).catch((err: unknown) =>
    ctx.log.warn({ err, ...logFields }, 'could not record credential use'),
  );
}
