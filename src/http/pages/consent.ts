import type Router from '@koa/router';
import type { Context } from 'koa';
import type { App } from '../../app.js';
import { SCOPES, SCOPE_LABELS, DEFAULT_CONSENT_SCOPES, type Scope } from '../../auth/scopes.js';
import { isAppError } from '../../errors.js';
import { type AuthorizationRequest, type Choice, checkDecision, decide, errorRedirect, loadPendingRequest, parseAuthorizationRequest, savePendingRequest } from '../../oauth/authorize.js';
import { redirectTarget } from '../../oauth/connections.js';
import { listUserWorkspaces } from '../../workspaces/members.js';
import type { Workspace } from '../../workspaces/types.js';
import { type SafeHtml, html } from './html.js';
import { errorPage, layout, sendPage } from './layout.js';
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

function consentPage(v: ConsentView): SafeHtml {
  const name = v.req.client.name?.trim() || 'An unnamed application';
  const error = v.error && html`<div class="alert error" role="alert">${v.error}</div>`;
  const picker =
    v.workspaces.length === 1
      ? html`<input type="hidden" name="workspace" value="${v.workspaces[0].id}"><h2>Workspace</h2><p><strong>${v.workspaces[0].name}</strong></p>`
      : html`<fieldset><legend><h2>Choose a workspace</h2></legend>${v.workspaces
          .map((w, i) => {
            const on = v.workspaceId ? v.workspaceId === w.id : i === 0;
            return html`<label class="choice"><input type="radio" name="workspace" value="${w.id}" ${on ? 'checked' : ''}><div><strong>${w.name}</strong><span>${w.websiteUrl}</span></div></label>`;
          })}</fieldset>`;
  const scopes = SCOPES.map(
    (s) =>
      html`<label class="choice"><input type="checkbox" name="scope" value="${s}" ${v.checked.includes(s) ? 'checked' : ''}><div><strong>${SCOPE_LABELS[s]}</strong><span>${GRANTS[s]}</span></div></label>`,
  );
  const canApprove = v.workspaces.length > 0;
  return layout({
    title: `Connect ${name}`,
    user: { email: v.email, csrf: v.csrf },
    body: html`<div class="card">
<div class="app"><div class="icon" aria-hidden="true">${name.charAt(0).toUpperCase()}</div><div><h1>${name} wants to connect</h1><div class="host">Will return to <strong>${redirectTarget(v.req.redirectUri)}</strong></div></div></div>
<p class="sub">It will act as <strong>${v.email}</strong>, with your role, in the one workspace you choose, and only with the permissions you tick.</p>
${error}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="request" value="${v.requestId}">
${canApprove ? picker : html`<div class="alert error">Your account is not a member of any workspace yet, so there is nothing to connect.</div>`}
${canApprove && html`<fieldset><legend><h2>Permissions</h2></legend>${scopes}</fieldset>`}
<div class="actions">
<button class="btn secondary" type="submit" name="decision" value="deny">Deny</button>
${canApprove && html`<button class="btn primary" type="submit" name="decision" value="approve">Approve</button>`}
</div>
</form>
<p class="note">Only approve applications you trust. You can revoke this connection at any time on your <a href="/connections">connections page</a>.</p>
</div>`,
  });
}

/** GET /oauth/authorize (login if needed, then consent) and POST /oauth/authorize (the answer). */
export function consentRoutes(app: App, router: Router): void {
  router.get('/oauth/authorize', async (ctx) => {
    const req = await guard(app, ctx, () => parseAuthorizationRequest(app, ctx.query));
    if (!req) return;
    const { session, user } = pageState(ctx);
    if (!session || !user) return ctx.redirect(`/login?next=${encodeURIComponent(ctx.originalUrl)}`);
    const requestId = await savePendingRequest(app, session.idHash, req);
    const checked = DEFAULT_CONSENT_SCOPES.filter((s) => req.requestedScopes.includes(s));
    sendPage(ctx, consentPage({ requestId, csrf: session.csrfToken, email: user.email, req, workspaces: await listUserWorkspaces(app, user.id), checked }));
  });

  router.post('/oauth/authorize', async (ctx) => {
    const { session, user } = pageState(ctx);
    if (!session || !user) return sendPage(ctx, errorPage('Signed out', 'You were signed out before answering. Start connecting again from the app.'), 403);
    if (!csrfOk(ctx)) {
      return sendPage(ctx, errorPage('Request refused', 'This form did not come from this site (its security token is missing or wrong). Start connecting again from the app.'), 403);
    }
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const req = await guard(app, ctx, () => loadPendingRequest(app, session.idHash, body.request));
    if (!req) return;
    const scopes = ([] as unknown[]).concat(body.scope ?? []).filter((s): s is string => typeof s === 'string');
    const workspaceId = typeof body.workspace === 'string' ? body.workspace : undefined;
    let choice: Choice;
    try {
      choice = await checkDecision(app, user.id, { approve: body.decision === 'approve', workspaceId, scopes });
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      const workspaces = await listUserWorkspaces(app, user.id);
      const checked = scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      return sendPage(ctx, consentPage({ requestId: req.id, csrf: session.csrfToken, email: user.email, req, workspaces, checked, workspaceId, error: err.message }), err.status);
    }
    const to = await guard(app, ctx, () => decide(app, user.id, req, choice));
    if (!to) return;
    ctx.status = 303;
    ctx.redirect(to);
  });
}

/**
 * Runs fn; an authorization error goes back to the client when it carries a verified redirect
 * URI, else it is shown on the error page. Returns undefined then.
 */
async function guard<T>(app: App, ctx: Context, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (!isAppError(err) || err.status >= 500) throw err;
    const to = errorRedirect(app, err);
    if (to) {
      ctx.status = ctx.method === 'POST' ? 303 : 302;
      ctx.redirect(to);
    } else {
      sendPage(ctx, errorPage('This connection cannot continue', err.message), err.status);
    }
    return undefined;
  }
}
