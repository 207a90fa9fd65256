import type { Ctx } from '../context.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { NOT_A_MEMBER, type Role, isRole, roleAtLeast, roleRefusal } from './roles.js';
import * as store from './store.js';
import type { Membership } from './types.js';
import { getUserByEmail } from './users.js';

export function parseRole(value: string): Role {
  if (!isRole(value)) throw badRequest('invalid_input', `Unknown role "${value}": use admin, editor or viewer`);
  return value;
}

export async function addMember(ctx: Ctx, workspaceId: string, email: string, role: Role): Promise<Membership> {
  const user = await getUserByEmail(ctx, email);
  await store.upsertMembership(ctx.db, { workspace_id: workspaceId, user_id: user.id, role, created_at: nowIso(ctx.clock) });
  ctx.events.emit('auth.changed', { workspaceId });
  return (await store.findMembership(ctx.db, workspaceId, user.id))!;
}

export const listMembers = (ctx: Ctx, workspaceId: string) => store.listMembershipRows(ctx.db, workspaceId);

export async function setMemberRole(ctx: Ctx, workspaceId: string, email: string, role: Role): Promise<Membership> {
  const user = await getUserByEmail(ctx, email);
  const current = await store.findMembership(ctx.db, workspaceId, user.id);
  if (!current) throw notFound('membership', email, { hint: `Add the user first: svc members add --email ${email}` });
  if (current.role === 'admin' && role !== 'admin' && (await store.countAdmins(ctx.db, workspaceId)) <= 1) {
    throw badRequest('last_admin', `${email} is the last admin of this workspace; make another member admin first`);
  }
  await store.updateMembershipRole(ctx.db, workspaceId, user.id, role);
  ctx.events.emit('auth.changed', { workspaceId });
  return { ...current, role };
}

export async function removeMember(ctx: Ctx, workspaceId: string, email: string): Promise<Membership> {
  const user = await getUserByEmail(ctx, email);
  const current = await store.findMembership(ctx.db, workspaceId, user.id);
  if (!current) throw notFound('membership', email);
  await store.deleteMembership(ctx.db, workspaceId, user.id);
  ctx.events.emit('auth.changed', { workspaceId });
  return current;
}

export const findMembership = (ctx: Ctx, workspaceId: string, userId: string) => store.findMembership(ctx.db, workspaceId, userId);

export const listUserWorkspaces = (ctx: Ctx, userId: string) => store.listUserWorkspaceRows(ctx.db, userId);

/** Throws unless the user is a member with at least `min`. */
export async function requireRole(ctx: Ctx, workspaceId: string, userId: string, min: Role): Promise<Membership> {
  const m = await store.findMembership(ctx.db, workspaceId, userId);
  if (!m) throw forbidden(NOT_A_MEMBER, { details: { reason: 'not_member' } });
  if (!roleAtLeast(m.role, min)) throw forbidden(roleRefusal(min, m.role), { details: { reason: 'role' } });
  return m;
}
