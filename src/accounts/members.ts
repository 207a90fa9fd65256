import type { Ctx } from '../context.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { withTransaction } from '../db/tx.js';
import { AppError, notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { MEMBERSHIP_REMOVED } from '../oauth/connections.js';
import { revokeUserGrants } from '../oauth/store.js';
import type { Role } from '../workspaces/roles.js';
import * as workspaces from '../workspaces/store.js';
import type { Membership } from '../workspaces/types.js';
import { getUserByEmail } from '../workspaces/users.js';

/**
 * The one place memberships change, so every rule holds on every surface. In one transaction, with the
 * workspace locked: a change that would leave the workspace without an admin is refused, and
 * a removal revokes the member's agent connections to that workspace, so adding them again
 * never brings an old grant back. Two admins demoting or removing each other at once leave one.
 */
export const lastAdmin = (email: string, where = 'this workspace'): AppError =>
  new AppError('last_admin', 400, `${email} is the last admin of ${where}; make another member admin first`, {
    hint: 'svc members set-role --email <another member> --role admin',
  });

type Next = { role: Role; mustExist: boolean } | { role: null };

async function changeMembership(ctx: Ctx, workspaceId: string, email: string, next: Next): Promise<{ before?: Membership; after?: Membership }> {
  const user = await getUserByEmail(ctx, email);
  const now = nowIso(ctx.clock);
  const result = await withTransaction(ctx.db, async (trx) => {
    await workspaces.lockWorkspaces(trx, [workspaceId]);
    const before = await workspaces.findMembership(trx, workspaceId, user.id);
    if (!before && (next.role === null || next.mustExist)) throw notFound('membership', user.email, { hint: `Add the user first: svc members add --email ${user.email}` });
    if (before?.role === 'admin' && next.role !== 'admin' && (await workspaces.countAdmins(trx, workspaceId)) <= 1) throw lastAdmin(user.email);
    if (next.role === null) {
      await workspaces.deleteMembership(trx, workspaceId, user.id);
      const revoked = await revokeUserGrants(trx, { userId: user.id, workspaceId }, now, MEMBERSHIP_REMOVED, { keepAccessTokens: true });
      if (revoked > 0) ctx.log.info({ userId: user.id, workspaceId, revoked }, 'agent connections revoked with the membership');
      return { before };
    }
    if (before) await workspaces.updateMembershipRole(trx, workspaceId, user.id, next.role);
    else {
      // The user was looked up before the lock: removed meanwhile (svc users remove), they are not found.
      await workspaces.upsertMembership(trx, { workspace_id: workspaceId, user_id: user.id, role: next.role, created_at: now }).catch((err: unknown) => {
        throw isForeignKeyViolation(err) ? notFound('user', user.email) : err;
      });
    }
    return { before, after: await workspaces.findMembership(trx, workspaceId, user.id) };
  });
  ctx.events.emit('auth.changed', { workspaceId });
  return result;
}

/** Add a user to a workspace, or change the role of one who is already a member. */
export async function addMember(ctx: Ctx, workspaceId: string, email: string, role: Role): Promise<Membership> {
  return (await changeMembership(ctx, workspaceId, email, { role, mustExist: false })).after!;
}

export async function setMemberRole(ctx: Ctx, workspaceId: string, email: string, role: Role): Promise<Membership> {
  return (await changeMembership(ctx, workspaceId, email, { role, mustExist: true })).after!;
}

/** Remove a member; their agent connections to the workspace are revoked with it. */
export async function removeMember(ctx: Ctx, workspaceId: string, email: string): Promise<Membership> {
  return (await changeMembership(ctx, workspaceId, email, { role: null })).before!;
}
