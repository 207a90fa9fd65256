import { createSession } from '../../src/auth/sessions.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { form, pkce } from './helpers.js';

/** Plain-fetch protocol helpers: no browser, the same requests a browser and a client make. */

export interface BrowserSession {
  cookie: string;
  csrf: string;
}

/** A signed-in session created through the service (as the login form would). */
export async function sessionFor(d: TestDaemon, userId: string): Promise<BrowserSession> {
  const { token, session } = await createSession(d.app, userId);
  return { cookie: `__session=${token}`, csrf: session.csrfToken };
}

export const cookieOf = (res: Response): string | undefined => {
  const c = res.headers.getSetCookie().find((s) => s.startsWith('__session='));
  return c?.split(';')[0];
};

export const hidden = (html: string, name: string): string | undefined => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

export async function register(d: TestDaemon, meta: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${d.url}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Proto Agent', redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none', ...meta }),
  });
}

export async function registerClient(d: TestDaemon, meta: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string; redirect_uris: string[] }> {
  const res = await register(d, meta);
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return res.json();
}

export function authorizeUrl(d: TestDaemon, params: Record<string, string | undefined>): string {
  const u = new URL(`${d.url}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** GET /oauth/authorize with the session; returns the response (manual redirects) and its HTML. */
export async function getAuthorize(d: TestDaemon, s: BrowserSession | null, params: Record<string, string | undefined>) {
  const res = await fetch(authorizeUrl(d, params), { redirect: 'manual', headers: s ? { Cookie: s.cookie } : {} });
  return { res, html: await res.text() };
}

/** POST the consent form; returns the response (a 303 to the client on success). */
export async function postConsent(d: TestDaemon, s: BrowserSession, fields: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of ([] as string[]).concat(v)) body.append(k, one);
  return fetch(`${d.url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: s.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
}

export interface CodeResult {
  code: string;
  verifier: string;
  redirectUri: string;
  location: URL;
}

/** Consent end to end: GET the screen, approve with the given scopes/workspace, return the code. */
export async function approve(
  d: TestDaemon,
  s: BrowserSession,
  client: { client_id: string; redirect_uris: string[] },
  o: { scopes?: string[]; workspaceId?: string; state?: string; resource?: string } = {},
): Promise<CodeResult> {
  const { verifier, challenge } = pkce();
  const redirectUri = client.redirect_uris[0];
  const { res, html } = await getAuthorize(d, s, {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: o.state ?? 'st-1',
    scope: 'read content publish',
    resource: o.resource ?? `${d.url}/api/mcp`,
  });
  if (res.status !== 200) throw new Error(`authorize: ${res.status} ${res.headers.get('location') ?? html.slice(0, 300)}`);
  const fields: Record<string, string | string[]> = { csrf: hidden(html, 'csrf')!, request: hidden(html, 'request')!, decision: 'approve', scope: o.scopes ?? ['read', 'content'] };
  const ws = o.workspaceId ?? hidden(html, 'workspace') ?? /name="workspace" value="([^"]*)"/.exec(html)?.[1];
  if (ws) fields.workspace = ws;
  const post = await postConsent(d, s, fields);
  if (post.status !== 303) throw new Error(`consent: ${post.status} ${(await post.text()).slice(0, 300)}`);
  const location = new URL(post.headers.get('location')!);
  return { code: location.searchParams.get('code')!, verifier, redirectUri, location };
}

export const token = (d: TestDaemon, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${d.url}/oauth/token`, { ...form(fields), headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers } });

export async function exchange(d: TestDaemon, clientId: string, c: CodeResult): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const res = await token(d, { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri, client_id: clientId });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A tools/list call on /api/mcp with a bearer token. */
export const mcp = (d: TestDaemon, bearer: string, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
  fetch(`${d.url}/api/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });

export const callTool = (d: TestDaemon, bearer: string, name: string, args: Record<string, unknown> = {}) =>
  mcp(d, bearer, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });

/**
 * A minimal browser for the pages: keeps cookies, never follows redirects (each hop is
 * returned), sends forms urlencoded.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  private remember(res: Response): Response {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const expired = attrs.some((a) => /^\s*max-age=0$/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(i + 1));
    }
    return res;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { ...(cookie ? { Cookie: cookie } : {}), ...extra };
  }

  async get(url: string): Promise<Response> {
    return this.remember(await fetch(new URL(url, this.base), { redirect: 'manual', headers: this.headers() }));
  }

  async post(url: string, fields: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of ([] as string[]).concat(v)) body.append(k, one);
    return this.remember(
      await fetch(new URL(url, this.base), { method: 'POST', redirect: 'manual', headers: this.headers({ 'Content-Type': 'application/x-www-form-urlencoded' }), body: body.toString() }),
    );
  }

  /** Sign in through the real form: GET /login, POST it; returns the POST's answer. */
  async signIn(email: string, password: string, next = '/connections'): Promise<Response> {
    const form = await this.get(`/login?next=${encodeURIComponent(next)}`);
    const csrf = hidden(await form.text(), 'csrf')!;
    return this.post('/login', { csrf, email, password, next });
  }
}
