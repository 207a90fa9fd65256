import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import type { Trx } from '../db/connect.js';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { refundCredits, spendCredits } from '../workspaces/usage.js';
import type { Workspace } from '../workspaces/types.js';
import * as lookups from './lookup-store.js';

// Keyword lookup credits (decisions.md "Keyword lookups"): one per keyword sent to the provider,
// reserved before the provider is called, so a call the allowance cannot cover is refused whole
// before any provider call, and two concurrent calls cannot overspend. The reservation is a
// `keyword_lookups` row: `done` keeps the credits, a failure gives them back. A process killed
// during the provider call leaves it `pending`; the next lookup of the workspace gives back
// reservations older than any lookup can take.

export interface Reservation {
  id: string;
  month: string;
  credits: number;
}

/** Reserve one credit per keyword, or refuse with the credits message spending nothing. */
export async function reserveLookup(ctx: Ctx, ws: Workspace, provider: string, keywords: string[]): Promise<Reservation> {
  await releaseAbandoned(ctx, ws.id);
  const id = newId('kwl');
  const now = ctx.clock.now();
  const month = await withTransaction(ctx.db, async (trx) => {
    const m = await spendCredits(trx, ws, 'keywords', keywords.length, now);
    await lookups.insertLookup(trx, { id, workspace_id: ws.id, month: m, credits: keywords.length, provider, keywords: JSON.stringify(keywords), created_at: now.toISOString() });
    return m;
  });
  return { id, month, credits: keywords.length };
}

/**
 * Keep the credits: call inside the transaction that stores the results. A lookup no longer
 * pending outlived its abandonment window and had its credits given back: it throws, so the
 * transaction keeps none of its results (no results for free).
 */
export async function completeLookup(ctx: Ctx, trx: Trx, r: Reservation): Promise<void> {
  if (await lookups.settleLookup(trx, r.id, 'done', ctx.clock.now().toISOString())) return;
  const seconds = Math.round(abandonedAfter(ctx) / 1000);
  throw new AppError('lookup_abandoned', 424, `The keyword lookup took longer than ${seconds} s, so it was given up and its results were not kept. Try again.`);
}

/** Give the credits back: the provider failed or the results could not be stored. */
export async function failLookup(ctx: Ctx, workspaceId: string, r: Reservation, error: string): Promise<void> {
  await settleAndRefund(ctx, workspaceId, r, 'failed', error);
}

/** A lookup still pending after this long belongs to a process that died. */
export const abandonedAfter = (ctx: Ctx): number => 2 * ctx.config.keywords.dataforseo.timeout + 60_000;

async function releaseAbandoned(ctx: Ctx, workspaceId: string): Promise<void> {
  const before = new Date(ctx.clock.now().getTime() - abandonedAfter(ctx)).toISOString();
  for (const r of await lookups.stalePendingLookups(ctx.db, workspaceId, before)) {
    if (await settleAndRefund(ctx, workspaceId, r, 'abandoned', 'the process making the lookup stopped before it ended')) {
      ctx.log.warn({ lookup: r.id, workspace: workspaceId, credits: r.credits }, 'gave back the credits of an abandoned keyword lookup');
    }
  }
}

/** Settle a pending lookup and refund its credits in one transaction; false if it was settled already. */
async function settleAndRefund(ctx: Ctx, workspaceId: string, r: Reservation, status: 'failed' | 'abandoned', error: string): Promise<boolean> {
  return withTransaction(ctx.db, async (trx) => {
    if (!(await lookups.settleLookup(trx, r.id, status, ctx.clock.now().toISOString(), error))) return false;
    await refundCredits(trx, workspaceId, 'keywords', r.credits, r.month);
    return true;
  });
}
