import type { Ctx } from '../context.js';
import * as articles from '../articles/store.js';
import type { Article } from '../articles/types.js';

/** How every surface words a failed scheduled publish (svc articles show/list, svc doctor, the MCP tools). */
export function describePublishError(a: Pick<Article, 'publishError'>): string | null {
  const e = a.publishError;
  if (!e) return null;
  const again = e.retryAt ? `; tried again at ${e.retryAt}` : '';
  return `scheduled publish failed at ${e.at}${e.failures > 1 ? ` (${e.failures} times)` : ''}: ${e.message}${again}`;
}

export interface ScheduleFinding {
  level: 'fail';
  check: string;
  detail: string;
}

/** What `svc doctor` reports: every scheduled article whose publish failed, across workspaces. */
export async function scheduleHealth(ctx: Ctx, workspaceNames: Map<string, string>): Promise<ScheduleFinding[]> {
  const failed = await articles.failedScheduledRows(ctx.db);
  return failed.map((a) => ({
    level: 'fail' as const,
    check: `scheduled article ${a.slug} of ${workspaceNames.get(a.workspaceId) ?? a.workspaceId}`,
    detail: describePublishError(a)!,
  }));
}
