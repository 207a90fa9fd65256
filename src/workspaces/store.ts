import { type Queryable, writeOn } from '../db/connect.js';
import type { Role } from './roles.js';
import type { BillingStatus } from './inputs.js';
import type { Membership, User, Workspace } from './types.js';

type Row = Record<string, any>;

export const toWorkspace = (r: Row): Workspace => ({
  id: r.id,
  name: r.name,
  websiteUrl: r.website_url,
  siteUrl: r.site_url ?? null,
  contentPath: r.content_path,
  plan: r.plan,
  billingStatus: r.billing_status as BillingStatus,
  graceUntil: r.grace_until ?? null,
  autoPublish: Boolean(r.auto_publish),
  allowances: { articles: Number(r.allowance_articles), audits: Number(r.allowance_audits), keywords: Number(r.allowance_keywords) },
  keywordLocation: r.keyword_location ?? null,
  keywordLanguage: r.keyword_language ?? null,
  contentVersion: Number(r.content_version),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toUser = (r: Row): User => ({ id: r.id, email: r.email, displayName: r.display_name, createdAt: r.created_at });

const toMembership = (r: Row): Membership => ({
  workspaceId: r.workspace_id,
  userId: r.user_id,
  email: r.email,
  displayName: r.display_name,
  role: r.role as Role,
  createdAt: r.created_at,
});

export async function insertWorkspace(db: Queryable, row: Row): Promise<void> {
  await writeOn(db)('workspaces').insert(row);
}

export async function updateWorkspaceRow(db: Queryable, id: string, patch: Row): Promise<void> {
  await writeOn(db)('workspaces').where({ id }).update(patch);
}

export async function findWorkspace(db: Queryable, idOrName: string): Promise<Workspace | undefined> {
  const row = await db('workspaces').where({ id: idOrName }).orWhere({ name: idOrName }).first();
  return row ? toWorkspace(row) : undefined;
}

export async function listWorkspaceRows(db: Queryable): Promise<Workspace[]> {
  return (await db('workspaces').orderBy('created_at').orderBy('id')).map(toWorkspace);
}

export async function countWorkspaces(db: Queryable): Promise<number> {
  const row = await db('workspaces').count<{ n: number }>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Bump the per-workspace content version inside the transaction that changed served content. */
export async function bumpContentVersion(db: Queryable, workspaceId: string): Promise<void> {
  await writeOn(db)('workspaces').where({ id: workspaceId }).increment('content_version', 1);
}

export async function insertUser(db: Queryable, row: Row): Promise<void> {
  await writeOn(db)('users').insert(row);
}

export async function findUserByEmail(db: Queryable, email: string): Promise<(User & { passwordHash: string }) | undefined> {
  const row = await db('users').where({ email: email.toLowerCase() }).first();
  return row ? { ...toUser(row), passwordHash: row.password_hash } : undefined;
}

export async function findUserById(db: Queryable, id: string): Promise<User | undefined> {
  const row = await db('users').where({ id }).first();
  return row ? toUser(row) : undefined;
}

export async function listUserRows(db: Queryable): Promise<User[]> {
  return (await db('users').orderBy('created_at').orderBy('id')).map(toUser);
}

/** Update a user's row; false when there is none (any more). */
export async function updateUserRow(db: Queryable, id: string, patch: Row): Promise<boolean> {
  return (await writeOn(db)('users').where({ id }).update(patch)) > 0;
}

export async function deleteUserRow(db: Queryable, id: string): Promise<void> {
  await writeOn(db)('users').where({ id }).delete();
}

export async function upsertMembership(db: Queryable, row: { workspace_id: string; user_id: string; role: Role; created_at: string }): Promise<void> {
  await writeOn(db)('memberships').insert(row).onConflict(['workspace_id', 'user_id']).merge(['role']);
}

export async function findMembership(db: Queryable, workspaceId: string, userId: string): Promise<Membership | undefined> {
  const row = await db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where({ 'm.workspace_id': workspaceId, 'm.user_id': userId })
    .first('m.*', 'u.email', 'u.display_name');
  return row ? toMembership(row) : undefined;
}

export async function listMembershipRows(db: Queryable, workspaceId: string): Promise<Membership[]> {
  return (
    await db('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.workspace_id': workspaceId })
      .orderBy('m.created_at')
      .select('m.*', 'u.email', 'u.display_name')
  ).map(toMembership);
}

export async function listUserWorkspaceRows(db: Queryable, userId: string): Promise<Array<Workspace & { role: Role }>> {
  const rows = await db('workspaces as w').join('memberships as m', 'm.workspace_id', 'w.id').where({ 'm.user_id': userId }).orderBy('w.name').select('w.*', 'm.role');
  return rows.map((r: Row) => ({ ...toWorkspace(r), role: r.role as Role }));
}

export async function updateMembershipRole(db: Queryable, workspaceId: string, userId: string, role: Role): Promise<number> {
  return writeOn(db)('memberships').where({ workspace_id: workspaceId, user_id: userId }).update({ role });
}

export async function deleteMembership(db: Queryable, workspaceId: string, userId: string): Promise<number> {
  return writeOn(db)('memberships').where({ workspace_id: workspaceId, user_id: userId }).delete();
}

export async function countAdmins(db: Queryable, workspaceId: string): Promise<number> {
  const row = await db('memberships').where({ workspace_id: workspaceId, role: 'admin' }).count<{ n: number }>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Serialise changes to one workspace's memberships: a no-op write to each workspace row, so a
 * concurrent transaction waits (PostgreSQL row lock, SQLite write lock) and then reads what this
 * one committed. Ids are locked in one order, so two callers cannot deadlock.
 */
export async function lockWorkspaces(db: Queryable, ids: string[]): Promise<void> {
  for (const id of [...new Set(ids)].sort()) await writeOn(db)('workspaces').where({ id }).increment('content_version', 0);
}

export async function listAdminWorkspaceIds(db: Queryable, userId: string): Promise<string[]> {
  return (await db('memberships').where({ user_id: userId, role: 'admin' }).select('workspace_id')).map((r: Row) => r.workspace_id as string);
}

/**
 * The user's password hash, read with the row locked until the transaction ends: a sign-in and
 * a password change serialise on it (a no-op write, so it works on SQLite and PostgreSQL).
 */
export async function lockPasswordHash(db: Queryable, userId: string): Promise<string | undefined> {
  await writeOn(db)('users').where({ id: userId }).update({ password_hash: db.raw('??', ['password_hash']) });
  return (await db('users').where({ id: userId }).first('password_hash'))?.password_hash;
}
