import type { Ctx } from '../context.js';
import { badRequest, forbidden } from '../errors.js';
import { NOT_A_MEMBER, type Role, isRole, roleAtLeast, roleRefusal } from './roles.js';
import * as store from './store.js';
import type { Membership } from './types.js';

export function parseRole(value: string): Role {
  if (!isRole(value)) throw badRequest('invalid_input', `Unknown role "${value}": use admin, editor or viewer`);
  return value;
}

// Adding, changing and removing members: accounts/members.ts (one transaction, at least one admin).

export const listMembers = (ctx: Ctx, workspaceId: string) => store.listMembershipRows(ctx.db, workspaceId);

export const findMembership = (ctx: Ctx, workspaceId: string, userId: string) => store.findMembership(ctx.db, workspaceId, userId);

export const listUserWorkspaces = (ctx: Ctx, userId: string) => store.listUserWorkspaceRows(ctx.db, userId);

/** Throws unless the user is a member with at least `min`. */
export async function requireRole(ctx: Ctx, workspaceId: string, userId: string, min: Role): Promise<Membership> {
  const m = await store.findMembership(ctx.db, workspaceId, userId);
  if (!m) throw forbidden(NOT_A_MEMBER, { details: { reason: 'not_member' } });
  if (!roleAtLeast(m.role, min)) throw forbidden(roleRefusal(min, m.role), { details: { reason: 'role' } });
  return m;
}
