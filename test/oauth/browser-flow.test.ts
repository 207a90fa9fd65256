import path from 'node:path';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it } from 'vitest';
import { describeWithBrowser } from '../helpers/browser.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { addMember } from '../../src/accounts/members.js';
import { MemoryProvider, SCREENSHOTS, callbackServer, form, launchBrowser } from './helpers.js';

const shot = (name: string) => ({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

async function mcpCall(url: string, provider: MemoryProvider) {
  const client = new Client({ name: 'browser-flow-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { authProvider: provider }));
  try {
    const result = await client.callTool({ name: 'get_site_profile', arguments: {} });
    return (result.content as Array<{ type: string; text: string }>)[0].text;
  } finally {
    await client.close();
  }
}

describeWithBrowser('connecting an agent in the browser (SDK client auth + real pages)', () => {
  it('discovers, registers, logs in, consents, exchanges the code, calls MCP, refreshes and revokes', async () => {
    const d = await startDaemon();
    const wsA = await seedWorkspace(d.app, { name: 'alpha.example', websiteUrl: 'https://alpha.example' });
    const wsB = await seedWorkspace(d.app, { name: 'beta.example', websiteUrl: 'https://beta.example' });
    const user = await seedUser(d.app, wsA, 'admin');
    await addMember(d.app, wsB.id, user.email, 'editor');
    const cb = await callbackServer();
    const provider = new MemoryProvider(cb.url, { client_name: 'Claude Test' });
    const serverUrl = `${d.url}/api/mcp`;

    // Discovery (RFC 9728 -> RFC 8414), dynamic registration, PKCE: the SDK asks us to redirect.
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${d.url}/oauth/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(serverUrl);

    const browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(authUrl.toString());
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.screenshot(shot('1-login'));

    // The sign-in form's CSRF token is a cookie for /login only; there is no session yet.
    const cookie = async (name: string) => (await page.context().cookies()).find((c) => c.name === name);
    expect(await cookie('__login_csrf')).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/login' });
    expect(await cookie('__session')).toBeUndefined();

    // A wrong password first: a clear message, still on the login page.
    await page.fill('#email', user.email);
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('do not match');

    await page.fill('#password', user.password);
    await page.click('button[type=submit]');
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    expect(await cookie('__session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    expect(await cookie('__login_csrf')).toBeUndefined();

    // Consent: client name and redirect host, a workspace picker, scopes with labels, publish off.
    await expect(page.locator('h1').textContent()).resolves.toContain('Claude Test wants to connect');
    await expect(page.locator('.host').textContent()).resolves.toContain(new URL(cb.url).host);
    await expect(page.getByLabel('Read your SEO data').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Research and write content').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Publish to your website').isChecked()).resolves.toBe(false);
    await expect(page.locator('input[name=workspace]').count()).resolves.toBe(2);
    await page.screenshot(shot('2-consent'));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot(shot('2-consent-phone'));
    await page.setViewportSize({ width: 1100, height: 900 });

    await page.check('input[name=workspace][value="' + wsB.id + '"]');
    const callback = cb.next();
    await page.click('button[value=approve]');
    const q = await callback;
    expect(q.get('state')).toBe(provider.stateValue);
    expect(q.get('iss')).toBe(d.url);
    const code = q.get('code')!;
    expect(code).toBeTruthy();

    // Code exchange through the SDK.
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const first = provider.saved!;
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read content' });
    expect(first.refresh_token).toBeTruthy();

    // MCP with the token: the chosen workspace, the ticked scopes.
    const profile = await mcpCall(d.url, provider);
    expect(profile).toContain('beta.example');
    expect(profile).toContain('Scopes: read, content');

    // The connections page lists it.
    await page.goto(`${d.url}/connections`);
    await expect(page.locator('table').textContent()).resolves.toContain('Claude Test');
    await expect(page.locator('table').textContent()).resolves.toContain('beta.example');
    await page.screenshot(shot('3-connections'));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot(shot('3-connections-phone'));
    await page.setViewportSize({ width: 1100, height: 900 });

    // An app with a private-use scheme: the consent screen names the whole target, not the
    // "host" the app chose (evilapp://claude.ai is not claude.ai).
    const app = await fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Totally Claude', redirect_uris: ['evilapp://claude.ai/callback'], token_endpoint_auth_method: 'none' }),
    });
    const { client_id } = await app.json();
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    await page.goto(`${d.url}/oauth/authorize?response_type=code&client_id=${client_id}&redirect_uri=${encodeURIComponent('evilapp://claude.ai/callback')}&code_challenge=${challenge}&code_challenge_method=S256`);
    await expect(page.locator('.host').textContent()).resolves.toBe('Will return to evilapp://claude.ai/callback');
    await page.screenshot(shot('2-consent-custom-scheme'));

    // Silent refresh: a new pair, and MCP keeps working with it.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.access_token).not.toBe(first.access_token);
    expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpCall(d.url, provider)).toContain('beta.example');

    // Revocation from the client (RFC 7009): the access token stops working at once.
    const access = provider.saved!.access_token;
    const res = await fetch(`${d.url}/oauth/revoke`, form({ token: provider.saved!.refresh_token!, client_id: provider.info!.client_id }));
    expect(res.status).toBe(200);
    const mcp = await fetch(`${d.url}/api/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${access}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata=');

    // Logged out: the connections page asks to sign in again.
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${d.url}/connections`);
    await expect(page.locator('.empty').textContent()).resolves.toContain('No AI assistants');
    await page.click('text=Sign out');
    await page.waitForURL((u) => u.pathname === '/login');
    await page.goto(`${d.url}/connections`);
    expect(new URL(page.url()).pathname).toBe('/login');

    // A link to an unknown application: an error page, not a redirect.
    const bad = await page.goto(`${d.url}/oauth/authorize?response_type=code&client_id=cli_unknown&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`);
    expect(bad!.status()).toBe(400);
    expect(new URL(page.url()).host).toBe(new URL(d.url).host);
    await page.screenshot(shot('4-error'));
  });
});
