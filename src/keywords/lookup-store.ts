import { type Queryable, writeOn } from '../db/connect.js';

type Row = Record<string, any>;

export interface LookupRow {
  id: string;
  workspaceId: string;
  month: string;
  credits: number;
  status: 'pending' | 'done' | 'failed' | 'abandoned';
  createdAt: string;
}

const toLookup = (r: Row): LookupRow => ({ id: r.id, workspaceId: r.workspace_id, month: r.month, credits: Number(r.credits), status: r.status, createdAt: r.created_at });

export async function insertLookup(db: Queryable, row: { id: string; workspace_id: string; month: string; credits: number; provider: string; keywords: string; created_at: string }): Promise<void> {
  await writeOn(db)('keyword_lookups').insert({ ...row, status: 'pending' });
}

/** Move a pending lookup to its end state; false when it was not pending any more (someone settled it). */
export async function settleLookup(db: Queryable, id: string, status: 'done' | 'failed' | 'abandoned', at: string, error?: string): Promise<boolean> {
  const n = await writeOn(db)('keyword_lookups').where({ id, status: 'pending' }).update({ status, settled_at: at, error: error ?? null });
  return Number(n) === 1;
}

/** Lookups of the workspace still pending since before `before` (their process died). */
export async function stalePendingLookups(db: Queryable, workspaceId: string, before: string): Promise<LookupRow[]> {
  return (await db('keyword_lookups').where({ workspace_id: workspaceId, status: 'pending' }).andWhere('created_at', '<', before)).map(toLookup);
}
