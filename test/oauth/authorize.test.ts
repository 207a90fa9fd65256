import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { addMember } from '../../src/accounts/members.js';
import { type BrowserSession, approve, getAuthorize, hidden, postConsent, register, registerClient, sessionFor } from './flow.js';
import { pkce } from './helpers.js';

let d: TestDaemon;
let s: BrowserSession;
let client: { client_id: string; redirect_uris: string[] };
const base = () => {
  const { challenge } = pkce();
  return { response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uris[0], code_challenge: challenge, code_challenge_method: 'S256', state: 'abc' } as Record<string, string | undefined>;
};

beforeAll(async () => {
  d = await startDaemon({ jobs: false });
  const ws = await seedWorkspace(d.app);
  const user = await seedUser(d.app, ws, 'admin');
  s = await sessionFor(d, user.id);
  client = await registerClient(d);
});

describe('authorization endpoint errors', () => {
  it('shows a 400 page, never a redirect, for an unknown client or an unregistered redirect_uri', async () => {
    for (const params of [
      { ...base(), client_id: 'cli_nope' },
      { ...base(), client_id: undefined },
      { ...base(), redirect_uri: 'https://evil.example/cb' },
      { ...base(), redirect_uri: 'http://127.0.0.1:9999/other-path' },
    ]) {
      const { res, html } = await getAuthorize(d, s, params);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(html).toContain('This connection cannot continue');
    }
  });

  it('accepts a loopback redirect on another port (RFC 8252)', async () => {
    const { res } = await getAuthorize(d, s, { ...base(), redirect_uri: 'http://127.0.0.1:41111/cb' });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no method', { code_challenge_method: undefined }, 'invalid_request'],
    ['a bad challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['a wrong resource', { resource: 'https://other.example/api/mcp' }, 'invalid_target'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
  ])('redirects back with an error for %s, state and iss included', async (_l, over, error) => {
    const { res } = await getAuthorize(d, s, { ...base(), ...over });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(client.redirect_uris[0]);
    expect(to.searchParams.get('error')).toBe(error);
    expect(to.searchParams.get('error_description')).toBeTruthy();
    expect(to.searchParams.get('state')).toBe('abc');
    expect(to.searchParams.get('iss')).toBe(d.url);
  });

  it('refuses repeated parameters (RFC 6749 3.1): a page for client_id/redirect_uri, else a redirect', async () => {
    const q = new URLSearchParams(base() as Record<string, string>);
    const url = (extra: string) => `${d.url}/oauth/authorize?${q}&${extra}`;
    const page = await fetch(url(`client_id=${client.client_id}`), { redirect: 'manual', headers: { Cookie: s.cookie } });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    for (const extra of ['scope=read&scope=content', 'state=other', 'code_challenge_method=S256']) {
      const res = await fetch(`${url('scope=read')}&${extra}`, { redirect: 'manual', headers: { Cookie: s.cookie } });
      expect(res.status, extra).toBe(302);
      const to = new URL(res.headers.get('location')!);
      expect(to.searchParams.get('error')).toBe('invalid_request');
      expect(to.searchParams.get('error_description')).toContain('more than once');
      expect(to.searchParams.get('state')).toBe(extra.startsWith('state') ? null : 'abc');
    }
  });

  it('sends a signed-out person to the login page and back', async () => {
    const { res } = await getAuthorize(d, null, base());
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!, d.url);
    expect(to.pathname).toBe('/login');
    expect(to.searchParams.get('next')).toMatch(/^\/oauth\/authorize\?/);
  });
});

describe('consent', () => {
  it('returns state unchanged, whatever it holds, with iss and a 303', async () => {
    const weird = 'x"><script>&a=b c+d%20é';
    const r = await approve(d, s, client, { state: weird });
    expect(r.location.searchParams.get('state')).toBe(weird);
    expect(r.location.searchParams.get('iss')).toBe(d.url);
    expect(r.code).toMatch(/\S{30,}/);
  });

  it('Deny redirects with error=access_denied, state and iss', async () => {
    const { html } = await getAuthorize(d, s, base());
    const res = await postConsent(d, s, { csrf: hidden(html, 'csrf')!, request: hidden(html, 'request')!, decision: 'deny' });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('abc');
    expect(to.searchParams.get('iss')).toBe(d.url);
    expect(to.searchParams.get('code')).toBeNull();
  });

  it('refuses the consent POST without or with a wrong CSRF token, and keeps the request usable', async () => {
    const { html } = await getAuthorize(d, s, base());
    const request = hidden(html, 'request')!;
    const ws = /name="workspace" value="([^"]*)"/.exec(html)![1];
    for (const csrf of [undefined, 'wrong-token']) {
      const fields: Record<string, string | string[]> = { request, decision: 'approve', scope: ['read'], workspace: ws };
      if (csrf) fields.csrf = csrf;
      const res = await postConsent(d, s, fields);
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('Request refused');
    }
    // Another person's session cannot answer it either (the request is bound to the session).
    const other = await seedUser(d.app, null);
    const s2 = await sessionFor(d, other.id);
    const res = await postConsent(d, s2, { csrf: s2.csrf, request, decision: 'approve', scope: ['read'], workspace: ws });
    expect(res.status).toBe(400);
    const ok = await postConsent(d, s, { csrf: s.csrf, request, decision: 'approve', scope: ['read'], workspace: ws });
    expect(ok.status).toBe(303);
    // Answered once only.
    const again = await postConsent(d, s, { csrf: s.csrf, request, decision: 'approve', scope: ['read'], workspace: ws });
    expect(again.status).toBe(400);
  });

  it('refuses approving with no scope ticked or a workspace the user is not in', async () => {
    const { html } = await getAuthorize(d, s, base());
    const request = hidden(html, 'request')!;
    const ws = /name="workspace" value="([^"]*)"/.exec(html)![1];
    const none = await postConsent(d, s, { csrf: s.csrf, request, decision: 'approve', workspace: ws });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Tick at least one permission');
    const foreign = await seedWorkspace(d.app);
    const res = await postConsent(d, s, { csrf: s.csrf, request, decision: 'approve', scope: ['read'], workspace: foreign.id });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Pick one of your workspaces');
  });

  it('skips the picker for a user with one workspace, shows it for two; publish is unticked', async () => {
    const { html } = await getAuthorize(d, s, base());
    expect(html).toMatch(/<input type="hidden" name="workspace" value="[^"]+">/);
    expect(html).not.toContain('Choose a workspace');
    expect(html).toMatch(/value="read" checked/);
    expect(html).toMatch(/value="content" checked/);
    expect(html).not.toMatch(/value="publish" checked/);
    expect(html).toContain('Proto Agent wants to connect');
    expect(html).toContain('127.0.0.1:9999');

    const ws1 = await seedWorkspace(d.app);
    const u = await seedUser(d.app, ws1, 'editor');
    const ws2 = await seedWorkspace(d.app);
    await addMember(d.app, ws2.id, u.email, 'viewer');
    const s2 = await sessionFor(d, u.id);
    const two = await getAuthorize(d, s2, base());
    expect(two.html).toContain('Choose a workspace');
    expect(two.html.match(/type="radio" name="workspace"/g)).toHaveLength(2);
  });

  it('ticks only what the client asked for; offline_access is accepted as a no-op', async () => {
    const { res, html } = await getAuthorize(d, s, { ...base(), scope: 'read offline_access' });
    expect(res.status).toBe(200);
    expect(html).toMatch(/value="read" checked/);
    expect(html).not.toMatch(/value="content" checked/);
    expect(html).not.toMatch(/value="publish" checked/);
  });

  it('escapes what the client chose (its name) on the consent page', async () => {
    const evil = await registerClient(d, { client_name: '<script>alert(1)</script>"><img src=x>' });
    const { res, html } = await getAuthorize(d, s, { ...base(), client_id: evil.client_id, redirect_uri: evil.redirect_uris[0] });
    expect(res.status).toBe(200);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt; wants to connect');
  });

  it('bidi controls in client_name are refused at registration, and shown neutralised for a client stored earlier (issue 22)', async () => {
    for (const c of ['\u202e', '\u202a', '\u2066', '\u2069', '\u200f', '\u061c']) {
      const res = await register(d, { client_name: `Claude${c}txt.exe` });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: 'client_name may not contain bidirectional controls (U+202E and the like): they reorder how it reads' });
    }
    const earlier = await registerClient(d, { client_name: 'Trusted' });
    await d.app.db('oauth_clients').where({ id: earlier.client_id }).update({ client_name: 'Trusted\u202eexe.doc' });
    const { res, html } = await getAuthorize(d, s, { ...base(), client_id: earlier.client_id, redirect_uri: earlier.redirect_uris[0] });
    expect(res.status).toBe(200);
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(html).toContain('Trustedexe.doc wants to connect');
  });

  it('sets no form-action CSP on the consent page', async () => {
    const { res } = await getAuthorize(d, s, base());
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('form-action');
  });
});
