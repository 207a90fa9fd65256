import type Router from '@koa/router';
import type { App } from '../../app.js';
import { SCOPE_LABELS } from '../../auth/scopes.js';
import { isAppError } from '../../errors.js';
import { type Connection, listConnections, revokeConnectionAs } from '../../oauth/connections.js';
import { type SafeHtml, html } from './html.js';
import { errorPage, layout, sendPage } from './layout.js';
import { csrfOk, pageState } from './session.js';

function when(isoTime: string): SafeHtml {
  const d = new Date(isoTime);
  return html`<time datetime="${isoTime}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function row(c: Connection, csrf: string): SafeHtml {
  const name = c.client.name?.trim() || c.client.id;
  return html`<tr>
<td data-label="Application"><strong>${name}</strong><div class="host">${c.client.returnsTo}</div>${c.status === 'expired' && html`<div class="status-expired">Expired: unused for too long</div>`}</td>
<td data-label="Workspace">${c.workspace.name}</td>
<td data-label="Permissions">${c.scopes.map((s) => html`<span class="pill">${SCOPE_LABELS[s] ?? s}</span>`)}</td>
<td data-label="Last used">${when(c.lastUsedAt)}</td>
<td><form method="post" action="/connections/${encodeURIComponent(c.id)}/revoke"><input type="hidden" name="csrf" value="${csrf}"><button class="btn danger" type="submit" aria-label="Revoke ${name} in ${c.workspace.name}">Revoke</button></form></td>
</tr>`;
}

/** GET /connections (the signed-in user's agent connections) and POST /connections/:id/revoke. */
export function connectionsRoutes(app: App, router: Router): void {
  router.get('/connections', async (ctx) => {
    const { session, user } = pageState(ctx);
    if (!session || !user) return ctx.redirect('/login?next=%2Fconnections');
    const list = await listConnections(app, { userId: user.id });
    const flash = Boolean(ctx.query.revoked) && html`<div class="alert ok" role="status">Connection revoked. That application must be approved again to reconnect.</div>`;
    const table = list.length
      ? html`<table><thead><tr><th scope="col">Application</th><th scope="col">Workspace</th><th scope="col">Permissions</th><th scope="col">Last used</th><th scope="col"><span class="sr">Action</span></th></tr></thead><tbody>${list.map((c) => row(c, session.csrfToken))}</tbody></table>`
      : html`<div class="empty">No AI assistants are connected yet. Add <strong>${app.config.server.baseUrl.replace(/\/+$/, '')}/api/mcp</strong> to Claude, Cursor, VS Code or any MCP client to connect one.</div>`;
    const body = html`<div class="card"><h1>Connected applications</h1><p class="sub">AI assistants you approved. Each acts as you, in one workspace, with the permissions shown.</p>${flash}${table}</div>`;
    sendPage(ctx, layout({ title: 'Connections', wide: true, user: { email: user.email, csrf: session.csrfToken }, body }));
  });

  router.post('/connections/:id/revoke', async (ctx) => {
    const { session, user } = pageState(ctx);
    if (!session || !user) return ctx.redirect('/login?next=%2Fconnections');
    if (!csrfOk(ctx)) {
      return sendPage(ctx, errorPage('Request refused', 'This form did not come from this site. Reload your connections page and try again.'), 403);
    }
    try {
      await revokeConnectionAs(app, ctx.params.id, { userId: user.id, reason: 'user' });
    } catch (err) {
      if (!isAppError(err) || err.status !== 404) throw err;
      return sendPage(ctx, errorPage('Connection not found', 'It may have been revoked already.'), 404);
    }
    ctx.status = 303;
    ctx.redirect('/connections?revoked=1');
  });
}
