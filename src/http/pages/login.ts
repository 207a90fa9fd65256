import type Router from '@koa/router';
import type { Context } from 'koa';
import type { App } from '../../app.js';
import { SESSION_COOKIE, endSession, signIn } from '../../auth/sessions.js';
import { isAppError } from '../../errors.js';
import { type SafeHtml, html } from './html.js';
import { layout, sendPage } from './layout.js';
import { clearLoginCsrf, clearSessionCookie, csrfOk, loginCsrfOk, loginCsrfToken, pageState, safeNext, setSessionCookie } from './session.js';

function loginPage(o: { csrf: string; next: string; email?: string; error?: string }): SafeHtml {
  const error = o.error && html`<div class="alert error" role="alert">${o.error}</div>`;
  return layout({
    title: 'Sign in',
    body: html`<div class="card">
<h1>Sign in</h1>
<p class="sub">Use your svc account to connect an AI assistant or manage your connections.</p>
${error}
<form method="post" action="/login" novalidate>
<input type="hidden" name="csrf" value="${o.csrf}">
<input type="hidden" name="next" value="${o.next}">
<label class="field" for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}" ${o.email ? '' : 'autofocus'}>
<label class="field" for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required ${o.email ? 'autofocus' : ''}>
<button class="btn primary block" type="submit">Sign in</button>
</form>
</div>`,
  });
}

/** GET/POST /login, POST /logout. */
export function loginRoutes(app: App, router: Router): void {
  router.get('/login', async (ctx) => {
    const next = safeNext(ctx.query.next);
    if (pageState(ctx).user) return ctx.redirect(next);
    sendPage(ctx, loginPage({ csrf: loginCsrfToken(ctx), next }));
  });

  router.post('/login', async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const email = typeof body.email === 'string' ? body.email : '';
    if (!loginCsrfOk(ctx)) return retry(ctx, next, email, 403, 'This sign-in form expired. Please try again.');
    try {
      const { token } = await signIn(app, app.limits, {
        email,
        password: typeof body.password === 'string' ? body.password : '',
        address: ctx.ip,
        previousToken: ctx.cookies.get(SESSION_COOKIE),
      });
      setSessionCookie(app, ctx, token);
      clearLoginCsrf(ctx);
      ctx.status = 303;
      ctx.redirect(next);
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      if (err.status === 429) ctx.set('Retry-After', String(err.details?.retryAfterSeconds ?? 60));
      return retry(ctx, next, email, err.status, err.message);
    }
  });

  router.post('/logout', async (ctx) => {
    if (csrfOk(ctx)) {
      await endSession(app, ctx.cookies.get(SESSION_COOKIE));
      clearSessionCookie(ctx);
    }
    ctx.status = 303;
    ctx.redirect('/login');
  });
  router.get('/logout', (ctx) => ctx.redirect('/connections'));
}

function retry(ctx: Context, next: string, email: string, status: number, error: string): void {
  sendPage(ctx, loginPage({ csrf: loginCsrfToken(ctx), next, email, error }), status);
}
