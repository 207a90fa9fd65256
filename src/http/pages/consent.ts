import type Router from '@koa/router';
import type { Context } from 'koa';
import type { App } from '../../app.js';
import { SCOPES, SCOPE_LABELS, DEFAULT_CONSENT_SCOPES, type Scope } from '../../auth/scopes.js';
import { isAppError } from '../../errors.js';
import { type AuthorizationRequest, PageError, RedirectError, decide, loadPendingRequest, parseAuthorizationRequest, savePendingRequest } from '../../oauth/authorize.js';
import { redirectHost } from '../../oauth/connections.js';
import { listUserWorkspaces } from '../../workspaces/members.js';
import type { Workspace } from '../../workspaces/types.js';
import { errorPage, esc, html, layout } from './layout.js';
import { csrfOk, pageState } from './session.js';

// What each scope grants (spec, "Agent permissions"), shown under the consent label.
const GRANTS: Record<Scope, string> = {
  read: 'Keywords, articles, audits and the site profile.',
  content: 'Keyword lookups, audits and article generation. Spends monthly credits.',
  publish: 'Send articles to your website and take them down.',
};

interface ConsentView {
  requestId: string;
  csrf: string;
  email: string;
  req: AuthorizationRequest;
  workspaces: Workspace[];
  checked: Scope[];
  workspaceId?: string;
  error?: string;
}

function consentPage(v: ConsentView): string {
  const name = v.req.client.name?.trim() || 'An unnamed application';
  const host = redirectHost(v.req.client.redirectUris.includes(v.req.redirectUri) ? [v.req.redirectUri] : v.req.client.redirectUris) ?? 'unknown';
  const error = v.error ? html`<div class="alert error" role="alert">${esc(v.error)}</div>` : '';
  const picker =
    v.workspaces.length === 1
      ? html`<input type="hidden" name="workspace" value="${esc(v.workspaces[0].id)}"><h2>Workspace</h2><p><strong>${esc(v.workspaces[0].name)}</strong></p>`
      : html`<fieldset><legend><h2>Choose a workspace</h2></legend>${v.workspaces
          .map((w, i) => {
            const on = v.workspaceId ? v.workspaceId === w.id : i === 0;
            return html`<label class="choice"><input type="radio" name="workspace" value="${esc(w.id)}" ${on ? 'checked' : ''}><div><strong>${esc(w.name)}</strong><span>${esc(w.websiteUrl)}</span></div></label>`;
          })
          .join('')}</fieldset>`;
  const scopes = SCOPES.map(
    (s) =>
      html`<label class="choice"><input type="checkbox" name="scope" value="${s}" ${v.checked.includes(s) ? 'checked' : ''}><div><strong>${esc(SCOPE_LABELS[s])}</strong><span>${esc(GRANTS[s])}</span></div></label>`,
  ).join('');
  const canApprove = v.workspaces.length > 0;
  return layout({
    title: `Connect ${name}`,
    user: { email: v.email, csrf: v.csrf },
    body: html`<div class="card">
<div class="app"><div class="icon" aria-hidden="true">${esc(name.charAt(0).toUpperCase())}</div><div><h1>${esc(name)} wants to connect</h1><div class="host">Will return to <strong>${esc(host)}</strong></div></div></div>
<p class="sub">It will act as <strong>${esc(v.email)}</strong>, with your role, in the one workspace you choose, and only with the permissions you tick.</p>
${error}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
<input type="hidden" name="request" value="${esc(v.requestId)}">
${canApprove ? picker : '<div class="alert error">Your account is not a member of any workspace yet, so there is nothing to connect.</div>'}
${canApprove ? html`<fieldset><legend><h2>Permissions</h2></legend>${scopes}</fieldset>` : ''}
<div class="actions">
<button class="btn secondary" type="submit" name="decision" value="deny">Deny</button>
${canApprove ? '<button class="btn primary" type="submit" name="decision" value="approve">Approve</button>' : ''}
</div>
</form>
<p class="note">Only approve applications you trust. You can revoke this connection at any time on your <a href="/connections">connections page</a>.</p>
</div>`,
  });
}

/** GET /oauth/authorize (login if needed, then consent) and POST /oauth/authorize (the answer). */
export function consentRoutes(app: App, router: Router): void {
  router.get('/oauth/authorize', async (ctx) => {
    const req = await guard(ctx, () => parseAuthorizationRequest(app, ctx.query));
    if (!req) return;
    const { session, user } = pageState(ctx);
    if (!session || !user) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.originalUrl)}`);
    const requestId = await savePendingRequest(app, session.idHash, req);
    const checked = DEFAULT_CONSENT_SCOPES.filter((s) => req.requestedScopes.includes(s));
    ctx.type = 'html';
    ctx.body = consentPage({ requestId, csrf: session.csrfToken, email: user.email, req, workspaces: await listUserWorkspaces(app, user.id), checked });
  });

  router.post('/oauth/authorize', async (ctx) => {
    const { session, user } = pageState(ctx);
    if (!session || !user) return page(ctx, 403, 'Signed out', 'You were signed out before answering. Start connecting again from the app.');
    if (!csrfOk(ctx)) return page(ctx, 403, 'Request refused', 'This form did not come from this site (its security token is missing or wrong). Start connecting again from the app.');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const req = await guard(ctx, () => loadPendingRequest(app, session.idHash, body.request));
    if (!req) return;
    const scopes = ([] as unknown[]).concat(body.scope ?? []).filter((s): s is string => typeof s === 'string');
    const workspaceId = typeof body.workspace === 'string' ? body.workspace : undefined;
    try {
      const to = await guard(ctx, () => decide(app, user.id, req, { approve: body.decision === 'approve', workspaceId, scopes }));
      if (!to) return;
      ctx.status = 303;
      ctx.redirect(to);
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      ctx.status = err.status;
      ctx.type = 'html';
      const workspaces = await listUserWorkspaces(app, user.id);
      ctx.body = consentPage({ requestId: req.id, csrf: session.csrfToken, email: user.email, req, workspaces, checked: scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)), workspaceId, error: err.message });
    }
  });
}

/** Runs fn; PageError -> error page, RedirectError -> back to the client. Returns undefined then. */
async function guard<T>(ctx: Context, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RedirectError) {
      ctx.status = ctx.method === 'POST' ? 303 : 302;
      ctx.redirect(err.redirectTo);
      return undefined;
    }
    if (err instanceof PageError) {
      page(ctx, err.status, 'This connection cannot continue', err.message);
      return undefined;
    }
    throw err;
  }
}

function page(ctx: Context, status: number, title: string, message: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = errorPage(title, message);
}
