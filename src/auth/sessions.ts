import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { iso, nowIso } from '../lib/clock.js';
import type { Limits } from '../limits/index.js';
import { randomBase62, safeEqual, sha256Hex } from '../lib/crypto.js';
import { withTransaction } from '../db/tx.js';
import { lockPasswordHash } from '../workspaces/store.js';
import { verifyCredentials } from '../workspaces/users.js';
import type { User } from '../workspaces/types.js';
import * as store from './sessions-store.js';

/**
 * Browser sessions behind the `__session` cookie. The cookie holds a random token; the database
 * holds its SHA-256, so a leaked database does not hand out sessions, and every process (daemon,
 * CLI) sees the same sessions. A session is created by signing in, replacing any the browser
 * held (session fixation); the sign-in form itself needs none (its CSRF token is a cookie, see
 * http/pages/session.ts). Rows with no user come from older versions and sign nobody in.
 */
export const SESSION_COOKIE = '__session';

export interface Session {
  idHash: string;
  userId: string | null;
  csrfToken: string;
  expiresAt: string;
}

const toSession = (r: store.SessionRow): Session => ({ idHash: r.id_hash, userId: r.user_id, csrfToken: r.csrf_token, expiresAt: r.expires_at });

function newSessionRow(ctx: Ctx, userId: string): { token: string; row: store.SessionRow } {
  // ~256 bits, prefixed like every secret svc issues so logs redact it by its shape; sessions
  // made before the prefix still work (a session is looked up by the hash of whatever it is).
  const token = `svc_session_${randomBase62(43)}`;
  const now = ctx.clock.now();
  return {
    token,
    row: { id_hash: sha256Hex(token), user_id: userId, csrf_token: randomBase62(32), created_at: iso(now), expires_at: iso(new Date(now.getTime() + ctx.config.oauth.sessionTtl)) },
  };
}

export async function createSession(ctx: Ctx, userId: string): Promise<{ token: string; session: Session }> {
  const { token, row } = newSessionRow(ctx, userId);
  await store.insertSession(ctx.db, row);
  return { token, session: toSession(row) };
}

/**
 * Browser sessions one user keeps: a sign-in past it ends the oldest. Each sign-in makes one, and
 * a password that works can sign in as often as scrypt allows (8 a second on a loaded 2-core
 * machine, 5 million rows over the week a session lasts); each session also carries its
 * pending consent requests (oauth/authorize.ts), which go with it.
 */
export const SESSIONS_PER_USER = 50;

/**
 * The session of a sign-in, replacing the browser's previous one. With the user row locked, the
 * password must still be the one just verified: a password change that committed meanwhile
 * (it ends every session) must not be outlived by a session its old password opened. Null then.
 */
async function startSession(ctx: Ctx, verified: { user: User; passwordHash: string }, previousToken: string | undefined): Promise<{ token: string; session: Session } | null> {
  const { token, row } = newSessionRow(ctx, verified.user.id);
  return withTransaction(ctx.db, async (trx) => {
    if ((await lockPasswordHash(trx, verified.user.id)) !== verified.passwordHash) return null;
    if (previousToken) await store.deleteSessionRow(trx, sha256Hex(previousToken));
    // Room is made before the insert, so the new session is never the one a tie of times ends.
    const ended = await store.deleteSessionsBeyond(trx, verified.user.id, SESSIONS_PER_USER - 1);
    // Told, so a device signed out by a 51st sign-in is not a mystery to the operator.
    if (ended > 0) ctx.log.info({ userId: verified.user.id, ended }, `sign-in ended the user's oldest browser session (at most ${SESSIONS_PER_USER} a user)`);
    await store.insertSession(trx, row);
    return { token, session: toSession(row) };
  });
}

/** The live session for a cookie value, or null (unknown or expired). */
export async function findSession(ctx: Ctx, token: string | undefined): Promise<Session | null> {
  if (!token || token.length > 200) return null;
  const row = await store.findSessionRow(ctx.db, sha256Hex(token));
  if (!row || row.expires_at <= nowIso(ctx.clock)) return null;
  return toSession(row);
}

export async function endSession(ctx: Ctx, token: string | undefined): Promise<void> {
  if (token) await store.deleteSessionRow(ctx.db, sha256Hex(token));
}

/** Timing-safe comparison of a submitted CSRF token with the session's. */
export const csrfMatches = (session: Session, submitted: unknown): boolean =>
  typeof submitted === 'string' && submitted.length > 0 && safeEqual(session.csrfToken, submitted);

/**
 * Sign in with email and password. The attempt is counted by the throttle before the password
 * is checked (limits.signInAttempt: per account and address, and per address), so parallel
 * guesses cannot slip past it; a good password resets the account-and-address count.
 */
export async function signIn(
  ctx: Ctx,
  limits: Pick<Limits, 'signInAttempt'>,
  input: { email: string; password: string; address: string; previousToken?: string },
): Promise<{ token: string; session: Session; user: User }> {
  const email = input.email.trim().toLowerCase();
  const attempt = await limits.signInAttempt(email, input.address);
  const verified = email && input.password ? await verifyCredentials(ctx, email, input.password) : undefined;
  if (!verified) throw new AppError('invalid_credentials', 401, 'That email and password do not match an account.');
  await attempt.succeeded();
  const started = await startSession(ctx, verified, input.previousToken);
  if (!started) throw new AppError('invalid_credentials', 401, 'That email and password do not match an account.');
  return { ...started, user: verified.user };
}

/** Remove expired sessions (run by the cleanup job). */
export const purgeExpiredSessions = (ctx: Ctx) => store.deleteExpiredSessions(ctx.db, nowIso(ctx.clock));
