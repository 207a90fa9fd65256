import type { Context, Middleware } from 'koa';
import type { App } from '../../app.js';
import { SESSION_COOKIE, type Session, csrfMatches, findSession } from '../../auth/sessions.js';
import { randomBase62, safeEqual } from '../../lib/crypto.js';
import { getUserById } from '../../workspaces/users.js';
import type { User } from '../../workspaces/types.js';

export interface PageState {
  session: Session | null;
  user: User | null;
}

export const pageState = (ctx: Context): PageState => ctx.state.page as PageState;

/** Loads the `__session` cookie's session and its user into ctx.state.page. */
export function loadSession(app: App): Middleware {
  return async (ctx, next) => {
    const session = await findSession(app, ctx.cookies.get(SESSION_COOKIE));
    const user = session?.userId ? ((await getUserById(app, session.userId)) ?? null) : null;
    ctx.state.page = { session, user } satisfies PageState;
    await next();
  };
}

/** HttpOnly, SameSite=Lax, Secure when the request came over https (through a trusted proxy too). */
export function setSessionCookie(app: App, ctx: Context, token: string): void {
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: app.config.oauth.sessionTtl,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/', maxAge: 0, overwrite: true });
}

// The sign-in form's CSRF token lives in a cookie scoped to /login and comes back in the form
// (double submit): showing the form writes nothing to the database (a session row per
// GET /login would let anyone fill the table); the session is created when the form is posted with the right password.
const LOGIN_CSRF_COOKIE = '__login_csrf';
const LOGIN_CSRF_SHAPE = /^[A-Za-z0-9]{32}$/;

/** The sign-in form's CSRF token: the browser's, or a new one set as a cookie. */
export function loginCsrfToken(ctx: Context): string {
  const current = ctx.cookies.get(LOGIN_CSRF_COOKIE);
  if (current && LOGIN_CSRF_SHAPE.test(current)) return current;
  const token = randomBase62(32);
  ctx.cookies.set(LOGIN_CSRF_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/login', overwrite: true });
  return token;
}

export const loginCsrfOk = (ctx: Context): boolean => {
  const cookie = ctx.cookies.get(LOGIN_CSRF_COOKIE);
  const submitted = ((ctx.request.body ?? {}) as Record<string, unknown>).csrf;
  return Boolean(cookie && LOGIN_CSRF_SHAPE.test(cookie)) && typeof submitted === 'string' && safeEqual(cookie!, submitted);
};

export function clearLoginCsrf(ctx: Context): void {
  ctx.cookies.set(LOGIN_CSRF_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/login', maxAge: 0, overwrite: true });
}

export const csrfOk = (ctx: Context): boolean => {
  const session = pageState(ctx).session;
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  return Boolean(session && csrfMatches(session, body.csrf));
};

/**
 * Headers for every page. No `form-action` directive: the consent form's answer is a redirect
 * to the client's own URI (often a custom scheme or a loopback port), which it would block.
 */
export function pageHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!ctx.response.is('html')) return;
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };
}

/** A same-site path to go to after login; anything else falls back to the connections page. */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) && value.length < 4000 ? value : '/connections';
}
