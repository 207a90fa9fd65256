import { revokeUserGrants } from '../oauth/store.js';
import { deleteUserSessions } from '../auth/sessions-store.js';
import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { hashPassword } from '../lib/crypto.js';
import { parseInput } from '../lib/validate.js';
import * as workspaces from '../workspaces/store.js';
import type { User } from '../workspaces/types.js';
import { getUserByEmail, passwordInput } from '../workspaces/users.js';
import { lastAdmin } from './members.js';

export interface PasswordChange {
  user: User;
  /** Browser sessions ended (every one of the user's). */
  sessionsEnded: number;
  /** Agent connections revoked (only when asked for). */
  connectionsRevoked: number;
}

/**
 * Set a user's password. It signs them out of every browser session; with
 * revokeConnections it also ends their agent connections, which otherwise keep working (they
 * were approved by the person, not tied to the password).
 */
export async function changePassword(ctx: Ctx, email: string, password: string, options: { revokeConnections?: boolean } = {}): Promise<PasswordChange> {
  const user = await getUserByEmail(ctx, email);
  const hash = await hashPassword(parseInput(passwordInput, password, 'password'));
  const now = nowIso(ctx.clock);
  const ended = await withTransaction(ctx.db, async (trx) => {
    if (!(await workspaces.updateUserRow(trx, user.id, { password_hash: hash, updated_at: now }))) throw notFound('user', user.email);
    const sessionsEnded = await deleteUserSessions(trx, user.id);
    const connectionsRevoked = options.revokeConnections ? await revokeUserGrants(trx, { userId: user.id }, now, 'password_changed') : 0;
    return { sessionsEnded, connectionsRevoked };
  });
  ctx.events.emit('auth.changed', { workspaceId: '*' });
  ctx.log.info({ userId: user.id, ...ended }, 'password changed');
  return { user, ...ended };
}

/**
 * Delete a user with their memberships, sessions and agent connections, unless they are the
 * last admin of a workspace. The workspaces they administer are locked first, as a membership
 * change does, so this cannot race a demotion into an admin-less workspace.
 */
export async function removeUser(ctx: Ctx, email: string): Promise<User> {
  const user = await getUserByEmail(ctx, email);
  await withTransaction(ctx.db, async (trx) => {
    // Lock, then read again: a concurrent change may have made them admin somewhere else.
    const locked = new Set<string>();
    for (;;) {
      const fresh = (await workspaces.listAdminWorkspaceIds(trx, user.id)).filter((id) => !locked.has(id));
      if (fresh.length === 0) break;
      await workspaces.lockWorkspaces(trx, fresh);
      for (const id of fresh) locked.add(id);
    }
    for (const id of await workspaces.listAdminWorkspaceIds(trx, user.id)) {
      if ((await workspaces.countAdmins(trx, id)) <= 1) throw lastAdmin(user.email, `workspace ${(await workspaces.findWorkspace(trx, id))?.name ?? id}`);
    }
    await workspaces.deleteUserRow(trx, user.id);
  });
  ctx.events.emit('auth.changed', { workspaceId: '*' });
  return user;
}
