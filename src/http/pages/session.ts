import type { Context, Middleware } from 'koa';
import type { App } from '../../app.js';
import { SESSION_COOKIE, type Session, createSession, csrfMatches, findSession } from '../../auth/sessions.js';
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

/** The current session, creating an anonymous one (for the login form's CSRF token) if none. */
export async function ensureSession(app: App, ctx: Context): Promise<Session> {
  const state = pageState(ctx);
  if (state.session) return state.session;
  const { token, session } = await createSession(app, null);
  setSessionCookie(app, ctx, token);
  state.session = session;
  return session;
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
