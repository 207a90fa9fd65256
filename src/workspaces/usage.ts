import type { Ctx } from '../context.js';
import { type Queryable, writeOn } from '../db/connect.js';
import { AppError } from '../errors.js';
import type { Workspace } from './types.js';

export const CREDIT_KINDS = ['articles', 'audits', 'keywords'] as const;
export type CreditKind = (typeof CREDIT_KINDS)[number];

const LABEL: Record<CreditKind, string> = { articles: 'Articles', audits: 'Audits', keywords: 'Keyword lookups' };
export const creditLabel = (kind: CreditKind) => LABEL[kind];

/** Usage is counted per calendar month in UTC: `2026-11`. */
export const monthOf = (d: Date): string => d.toISOString().slice(0, 7);

export interface UsageLine {
  kind: CreditKind;
  label: string;
  used: number;
  allowed: number;
}

export async function getUsage(ctx: Ctx, ws: Workspace): Promise<UsageLine[]> {
  const rows = await ctx.db('usage_counters').where({ workspace_id: ws.id, month: monthOf(ctx.clock.now()) });
  const used = new Map(rows.map((r: { kind: string; used: number }) => [r.kind, Number(r.used)]));
  return CREDIT_KINDS.map((kind) => ({ kind, label: LABEL[kind], used: used.get(kind) ?? 0, allowed: ws.allowances[kind] }));
}

/** Credits used this month (UTC) over every workspace, by kind (the credits gauge of /metrics). */
export async function usageThisMonth(ctx: Ctx): Promise<Record<CreditKind, number>> {
  const rows = await ctx.db('usage_counters').where({ month: monthOf(ctx.clock.now()) }).select('kind').sum({ used: 'used' }).groupBy('kind');
  const out = Object.fromEntries(CREDIT_KINDS.map((k) => [k, 0])) as Record<CreditKind, number>;
  for (const r of rows as Array<{ kind: string; used: unknown }>) if ((CREDIT_KINDS as readonly string[]).includes(r.kind)) out[r.kind as CreditKind] = Number(r.used ?? 0);
  return out;
}

/**
 * Spend one credit of this month's allowance, atomically: the increment only happens while
 * used < allowed, so concurrent calls cannot overspend. Pass the transaction that does the work
 * so a failed operation does not spend.
 */
export async function spendCredit(db: Queryable, ws: Workspace, kind: CreditKind, now: Date): Promise<void> {
  await spendCredits(db, ws, kind, 1, now);
}

/**
 * Spend n credits at once or none (decisions.md "Keyword lookups": a call that would exceed the
 * allowance is refused whole): one conditional increment, so concurrent calls cannot overspend.
 * Returns the month the credits were taken from.
 */
export async function spendCredits(db: Queryable, ws: Workspace, kind: CreditKind, n: number, now: Date): Promise<string> {
  const month = monthOf(now);
  const allowed = ws.allowances[kind];
  const where = { workspace_id: ws.id, month, kind };
  await writeOn(db)('usage_counters').insert({ ...where, used: 0 }).onConflict(['workspace_id', 'month', 'kind']).ignore();
  const changed = await writeOn(db)('usage_counters').where(where).andWhere('used', '<=', allowed - n).increment('used', n);
  if (Number(changed) > 0) return month;
  const row = await db('usage_counters').where(where).first('used');
  const used = Number(row?.used ?? 0);
  const raise = `the operator can raise it with svc workspaces set --allowance ${kind}=N`;
  const details = { kind, allowed, used, needed: n, month };
  if (used >= allowed) {
    throw new AppError('credits_exhausted', 402, `This workspace has used all ${allowed} ${LABEL[kind].toLowerCase()} credits of its monthly allowance (${month}); ${raise}`, { details });
  }
  throw new AppError(
    'credits_exhausted',
    402,
    `This workspace has ${allowed - used} of its ${allowed} ${LABEL[kind].toLowerCase()} credits left this month (${month}) and this needs ${n}; nothing was spent. Ask for fewer, or ${raise}`,
    { details },
  );
}

/** Give back credits spent earlier in `month` (an operation that reserved them failed). */
export async function refundCredits(db: Queryable, workspaceId: string, kind: CreditKind, n: number, month: string): Promise<void> {
  await writeOn(db)('usage_counters').where({ workspace_id: workspaceId, month, kind }).andWhere('used', '>=', n).decrement('used', n);
}
