import type { Ctx } from '../context.js';
import type { Queryable } from '../db/connect.js';
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

/**
 * Spend one credit of this month's allowance, atomically: the increment only happens while
 * used < allowed, so concurrent calls cannot overspend. Pass the transaction that does the work
 * so a failed operation does not spend.
 */
export async function spendCredit(db: Queryable, ws: Workspace, kind: CreditKind, now: Date): Promise<void> {
  const month = monthOf(now);
  const allowed = ws.allowances[kind];
  await db('usage_counters').insert({ workspace_id: ws.id, month, kind, used: 0 }).onConflict(['workspace_id', 'month', 'kind']).ignore();
  const changed = await db('usage_counters').where({ workspace_id: ws.id, month, kind }).andWhere('used', '<', allowed).increment('used', 1);
  if (Number(changed) === 0) {
    throw new AppError('credits_exhausted', 402, `This workspace has used all ${allowed} ${LABEL[kind].toLowerCase()} credits of its monthly allowance (${month}); the operator can raise it with svc workspaces set --allowance ${kind}=N`, {
      details: { kind, allowed, month },
    });
  }
}
