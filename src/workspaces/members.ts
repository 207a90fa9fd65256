import type { Ctx } from '../context.js';
import { badRequest, forbidden } from '../errors.js';
import { type Role, isRole, roleAtLeast } from './roles.js';
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
  if (!m) throw forbidden('You are no longer a member of this workspace', { details: { reason: 'not_member' } });
  if (!roleAtLeast(m.role, min)) throw forbidden(`This needs the ${min} role; you are ${m.role === 'admin' ? 'an' : 'a'} ${m.role} in this workspace`, { details: { reason: 'role' } });
  return m;
}
