import { beforeAll, describe, expect, it } from 'vitest';
import { html, raw } from '../../src/http/pages/html.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { createUser } from '../../src/workspaces/users.js';
import { addMember } from '../../src/accounts/members.js';
import { PageClient, approve, exchange, getAuthorize, registerClient, sessionFor } from './flow.js';
import { pkce } from './helpers.js';

const HOSTILE = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>&amp;`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;';

describe('the html tag escapes by default (issue 17)', () => {
  it('escapes text, keeps fragments and raw markup, flattens lists, drops nothing-values', () => {
    expect(html`<p title="${HOSTILE}">${HOSTILE}</p>`.value).toBe(`<p title="${ESCAPED}">${ESCAPED}</p>`);
    const inner = html`<b>${'a<b'}</b>`;
    expect(html`<div>${inner}</div>`.value).toBe('<div><b>a&lt;b</b></div>');
    expect(html`<ul>${['<1>', '2'].map((x) => html`<li>${x}</li>`)}</ul>`.value).toBe('<ul><li>&lt;1&gt;</li><li>2</li></ul>');
    expect(html`${false}${null}${undefined}${true}${0}|${raw('<hr>')}`.value).toBe('0|<hr>');
    // A plain string that looks like markup is still text: only SafeHtml passes through.
    expect(html`${'<hr>'}`.value).toBe('&lt;hr&gt;');
  });
});

describe('pages show what strangers chose as text', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startDaemon({ jobs: false });
  });

  it('a hostile client name and redirect URI on the consent screen and the connections page', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d, { client_name: HOSTILE, redirect_uris: [`evilapp://claude.ai/cb?x=${HOSTILE}`] });
    // Registration normalises the URI (percent-encodes <, >, " and spaces); ' and & remain.
    const uri = client.redirect_uris[0];
    const escapedUri = uri.replace(/&/g, '&amp;').replace(/'/g, '&#39;');
    expect(escapedUri).not.toBe(uri);
    const { res, html: page } = await getAuthorize(d, s, {
      response_type: 'code', client_id: client.client_id, redirect_uri: uri, code_challenge: pkce().challenge, code_challenge_method: 'S256',
    });
    expect(res.status).toBe(200);
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain(`${ESCAPED} wants to connect`);
    // Not a https URI: the whole target is shown, not "claude.ai".
    const shown = /Will return to <strong>([^<]*)<\/strong>/.exec(page)![1];
    expect(shown).toBe(escapedUri);

    await exchange(d, client.client_id, await approve(d, s, client));
    const list = await (await fetch(`${d.url}/connections`, { headers: { Cookie: s.cookie } })).text();
    expect(list).not.toContain('<script>');
    expect(list).not.toContain('<img');
    expect(list).toContain(`<strong>${ESCAPED}</strong>`);
    expect(list).toContain(`<div class="host">${escapedUri}</div>`);
  });

  it('shows the host of an https redirect URI, and the whole loopback or app URI', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const s = await sessionFor(d, user.id);
    for (const [uri, shown] of [
      ['https://claude.ai/api/mcp/auth_callback', 'claude.ai'],
      ['evilapp://claude.ai/callback', 'evilapp://claude.ai/callback'],
      ['http://127.0.0.1:33418/cb', 'http://127.0.0.1:33418/cb'],
      ['com.example.app:/oauth2redirect', 'com.example.app:/oauth2redirect'],
    ]) {
      const client = await registerClient(d, { redirect_uris: [uri] });
      const { html: page } = await getAuthorize(d, s, { response_type: 'code', client_id: client.client_id, redirect_uri: uri, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
      expect(/Will return to <strong>([^<]*)<\/strong>/.exec(page)?.[1], uri).toBe(shown);
    }
  });

  it('emails: the signed-in header, and what was typed into the sign-in form', async () => {
    const ws = await seedWorkspace(d.app);
    const odd = await createUser(d.app, { email: `o'neil+x@example.com`, password: 'correct horse battery' });
    await addMember(d.app, ws.id, odd.email, 'editor');
    const s = await sessionFor(d, odd.id);
    const page = await (await fetch(`${d.url}/connections`, { headers: { Cookie: s.cookie } })).text();
    expect(page).toContain('<span>o&#39;neil+x@example.com</span>');

    const browser = new PageClient(d.url);
    const res = await browser.signIn(HOSTILE, 'whatever it is');
    expect(res.status).toBe(401);
    const again = await res.text();
    expect(again).not.toContain('<script>');
    expect(again).toContain(`name="email" type="email" autocomplete="username" required value="${ESCAPED}"`);
  });
});
