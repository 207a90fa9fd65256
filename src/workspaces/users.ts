import { z } from 'zod';
import type { Ctx } from '../context.js';
import { translateDbError } from '../db/errors.js';
import { notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import { hashPassword, verifyPassword } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { atMostChars, parseInput } from '../lib/validate.js';
import * as store from './store.js';
import type { User } from './types.js';

// The size first (the column's), so the address pattern never reads more text than an address may hold.
export const emailInput = z
  .string()
  .trim()
  .max(320, 'an email address has at most 320 characters')
  .pipe(z.string().toLowerCase().email('not a valid email address'));

export const passwordInput = z.string().min(8, 'passwords need at least 8 characters').max(1024);

export const userCreateInput = z.object({
  email: emailInput,
  password: passwordInput,
  displayName: z.string().trim().min(1).superRefine(atMostChars(200)).optional(),
});
export type UserCreateInput = z.input<typeof userCreateInput>;

export async function createUser(ctx: Ctx, input: UserCreateInput): Promise<User> {
  const data = parseInput(userCreateInput, input, 'user');
  const now = nowIso(ctx.clock);
  const id = newId('usr');
  try {
    await store.insertUser(ctx.db, {
      id,
      email: data.email,
      password_hash: await hashPassword(data.password),
      display_name: data.displayName ?? data.email.split('@')[0],
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    translateDbError(err, { unique: `A user with email ${data.email} already exists` });
  }
  return (await store.findUserById(ctx.db, id))!;
}

export async function getUserByEmail(ctx: Ctx, email: string): Promise<User> {
  const normalised = parseInput(emailInput, email, 'email');
  const user = await store.findUserByEmail(ctx.db, normalised);
  if (!user) throw notFound('user', normalised, { hint: 'List users with: svc users list' });
  const { passwordHash: _ignored, ...rest } = user;
  return rest;
}

export const getUserById = (ctx: Ctx, id: string) => store.findUserById(ctx.db, id);

export const listUsers = (ctx: Ctx): Promise<User[]> => store.listUserRows(ctx.db);

// Changing a password and removing a user end sessions and connections: accounts/users.ts.

/** Check a login; undefined when the email or password is wrong (never says which). */
export async function authenticate(ctx: Ctx, email: string, password: string): Promise<User | undefined> {
  return (await verifyCredentials(ctx, email, password))?.user;
}

/** authenticate, plus the password hash that was verified (a sign-in checks it did not change since). */
export async function verifyCredentials(ctx: Ctx, email: string, password: string): Promise<{ user: User; passwordHash: string } | undefined> {
  const found = await store.findUserByEmail(ctx.db, email.trim().toLowerCase());
  // Hash anyway on unknown emails so timing does not reveal which accounts exist.
  const ok = await verifyPassword(password, found?.passwordHash ?? DUMMY_HASH);
  if (!found || !ok) return undefined;
  const { passwordHash, ...user } = found;
  return { user, passwordHash };
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + 'A'.repeat(86) + '==';
