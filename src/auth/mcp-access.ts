import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { findMembership } from '../workspaces/members.js';
import { NOT_A_MEMBER } from '../workspaces/roles.js';
import { getWorkspace, subscriptionLapsed } from '../workspaces/service.js';
import type { Membership, Workspace } from '../workspaces/types.js';
import type { Principal } from './principal.js';

// Exact refusal text of the spec (Agent connection refusals).
export const SUBSCRIPTION_LAPSED = "This workspace's subscription has lapsed";

export interface CallAccess {
  workspace: Workspace;
  membership: Membership;
}

/**
 * Re-checked on every MCP call, whatever the principal's kind (spec: "the user's role in the
 * workspace is re-checked on every call"): the user is still a member (403), and the
 * subscription has not lapsed (403). Read from the database each time (two indexed lookups),
 * so a change made by the CLI in another process applies to the very next call.
 */
export async function checkCallAccess(ctx: Ctx, principal: Principal): Promise<CallAccess> {
  const membership = await findMembership(ctx, principal.workspaceId, principal.userId);
  if (!membership) throw new AppError('not_member', 403, NOT_A_MEMBER);
  const workspace = await getWorkspace(ctx, principal.workspaceId);
  if (subscriptionLapsed(workspace, ctx.clock.now())) throw new AppError('subscription_lapsed', 403, SUBSCRIPTION_LAPSED);
  return { workspace, membership };
}
