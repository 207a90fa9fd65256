import type { Ctx } from '../context.js';
import { translateDbError } from '../db/errors.js';
import { withTransaction } from '../db/tx.js';
import { conflict, notFound, usageError } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { parseInput } from '../lib/validate.js';
import { type WorkspaceCreateInput, type WorkspaceUpdateInput, workspaceCreateInput, workspaceUpdateInput } from './inputs.js';
import * as store from './store.js';
import type { Workspace } from './types.js';

export async function createWorkspace(ctx: Ctx, input: WorkspaceCreateInput): Promise<Workspace> {
  const data = parseInput(workspaceCreateInput, input, 'workspace');
  const now = nowIso(ctx.clock);
  const id = newId('ws');
  try {
    await store.insertWorkspace(ctx.db, {
      id,
      name: data.name,
      website_url: data.websiteUrl,
      site_url: data.siteUrl ?? null,
      content_path: data.contentPath ?? '/blog',
      plan: data.plan ?? 'free',
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    translateDbError(err, { unique: `A workspace named "${data.name}" already exists` });
  }
  return (await store.findWorkspace(ctx.db, id))!;
}

export async function updateWorkspace(ctx: Ctx, id: string, input: WorkspaceUpdateInput): Promise<Workspace> {
  const data = parseInput(workspaceUpdateInput, input, 'workspace settings');
  const columns: Record<string, unknown> = {
    name: data.name,
    website_url: data.websiteUrl,
    site_url: data.siteUrl,
    content_path: data.contentPath,
    plan: data.plan,
    billing_status: data.billingStatus,
    grace_until: data.graceUntil,
    auto_publish: data.autoPublish,
    allowance_articles: data.allowanceArticles,
    allowance_audits: data.allowanceAudits,
    allowance_keywords: data.allowanceKeywords,
    keyword_location: data.keywordLocation,
    keyword_language: data.keywordLanguage,
  };
  const patch = Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
  if (Object.keys(patch).length === 0) throw usageError('Nothing to change', 'Pass at least one setting, e.g. --site-url https://blog.example.com');
  // Article urls and the sitemap are composed from the site URL (or website) and content path when
  // served: moving the content version in the same transaction shows the new urls at once, in
  // every process, without republishing.
  const servedUrls = data.websiteUrl !== undefined || data.siteUrl !== undefined || data.contentPath !== undefined;
  try {
    await withTransaction(ctx.db, async (trx) => {
      await store.updateWorkspaceRow(trx, id, { ...patch, updated_at: nowIso(ctx.clock) });
      if (servedUrls) await store.bumpContentVersion(trx, id);
    });
  } catch (err) {
    translateDbError(err, { unique: `A workspace named "${data.name}" already exists` });
  }
  if (servedUrls) ctx.events.emit('content.changed', { workspaceId: id });
  return getWorkspace(ctx, id);
}

export async function getWorkspace(ctx: Ctx, idOrName: string): Promise<Workspace> {
  const ws = await store.findWorkspace(ctx.db, idOrName);
  if (!ws) throw notFound('workspace', idOrName, { hint: 'List workspaces with: svc workspaces list' });
  return ws;
}

export const listWorkspaces = (ctx: Ctx): Promise<Workspace[]> => store.listWorkspaceRows(ctx.db);

/** `--workspace` may be omitted when exactly one workspace exists. */
export async function resolveWorkspace(ctx: Ctx, ref: string | undefined): Promise<Workspace> {
  if (ref) return getWorkspace(ctx, ref);
  const all = await store.listWorkspaceRows(ctx.db);
  if (all.length === 1) return all[0];
  if (all.length === 0) throw notFound('workspace', undefined, { hint: 'Create one first: svc init, or svc workspaces add --name example.com --website https://example.com' });
  throw usageError(`There are ${all.length} workspaces: say which with --workspace ID|NAME`, `Workspaces: ${all.map((w) => w.name).join(', ')}`);
}

/**
 * Whether the workspace's subscription currently allows agent access: active, or past_due until
 * the grace end. A lapsed workspace, or past_due after its grace end, is refused.
 */
export function subscriptionLapsed(ws: Workspace, now: Date): boolean {
  if (ws.billingStatus === 'lapsed') return true;
  if (ws.billingStatus === 'past_due') return ws.graceUntil !== null && Date.parse(ws.graceUntil) <= now.getTime();
  return false;
}

export function assertUniqueName(all: Workspace[], name: string): void {
  if (all.some((w) => w.name === name)) throw conflict(`A workspace named "${name}" already exists`);
}
