import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { redactSecrets } from '../../src/lib/redact.js';
import { createPreview } from '../../src/publishing/previews.js';
import { generateSecret } from '../../src/webhooks/secrets.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import type { Workspace } from '../../src/workspaces/types.js';
import { runCli } from '../helpers/cli.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { loggedDaemon } from '../helpers/logged-daemon.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { listWebhookDeliveries } from '../../src/webhooks/service.js';
import { webhookWorld } from '../webhooks/setup.js';
import { approve, getAuthorize, hidden, registerClient, sessionFor, token } from '../oauth/flow.js';
import { pkce } from '../oauth/helpers.js';

// One redaction rule (lib/redact.ts) for every secret svc issues, in every log line.

let f: Awaited<ReturnType<typeof loggedDaemon>>;
let ws: Workspace;
let secrets: Record<string, string>;
const logged = () => f.lines.map((l) => JSON.stringify(l)).join('\n');
/** The random part: what must never be written (the prefix alone says only which kind it was). */
const randomPart = (secret: string) => secret.slice(secret.lastIndexOf('_') + 1);
const settle = () => new Promise((r) => setTimeout(r, 20));

beforeAll(async () => {
  f = await loggedDaemon();
  ws = await seedWorkspace(f.app);
  const admin = await seedUser(f.app, ws, 'admin');
  const d = { app: f.app, url: f.config.server.baseUrl } as TestDaemon;
  const client = await registerClient(d, { token_endpoint_auth_method: 'client_secret_post' });
  const browser = await sessionFor(d, admin.id);
  const code = await approve(d, browser, client, { workspaceId: ws.id });
  // A consent request still waiting for the person's decision: the form carries its id.
  const { html: consentPage } = await getAuthorize(d, browser, {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'st-2',
  });
  // The code is used up by the exchange; its value still must never be logged.
  const res = await token(d, { grant_type: 'authorization_code', code: code.code, code_verifier: code.verifier, redirect_uri: code.redirectUri, client_id: client.client_id, client_secret: client.client_secret! });
  const tokens = (await res.json()) as { access_token: string; refresh_token: string };
  const draft = await seedArticle(f.app, ws, { title: 'Secret plans' });
  secrets = {
    blogKey: (await generateBlogKey(f.app, ws)).key,
    apiKey: (await createApiKey(f.app, { workspaceId: ws.id, userId: admin.id, name: 'redaction', scopes: ['read'] })).key,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    code: code.code,
    clientSecret: client.client_secret!,
    preview: (await createPreview(f.app, await getWorkspace(f.app, ws.id), draft.slug)).token,
    signingSecret: generateSecret(),
    session: browser.cookie.slice(browser.cookie.indexOf('=') + 1),
    consentRequest: hidden(consentPage, 'request')!,
  };
  Object.assign(secrets, { draftSlug: draft.slug });
});

const issued = () => Object.entries(secrets).filter(([name]) => name !== 'draftSlug');

describe('one redaction rule for every secret svc issues', () => {
  it('recognises every kind svc issues (each is prefixed svc_<kind>_ or whsec_)', () => {
    for (const [name, secret] of issued()) {
      expect(secret, name).toMatch(/^(svc_[a-z]+_|whsec_)[0-9A-Za-z]{32,}$/);
      const text = `before ${secret}, after "${secret}"`;
      expect(redactSecrets(text), name).not.toContain(randomPart(secret));
      expect(redactSecrets(text), name).toContain('[redacted]');
    }
    // svc's own names are not secrets.
    expect(redactSecrets('svc_content_versions svc_http_requests_total')).toBe('svc_content_versions svc_http_requests_total');
  });

  it('keeps them out of every log line: messages, error messages and stacks, nested fields', async () => {
    for (const [name, secret] of issued()) {
      f.app.log.error({ err: new Error(`the receiver refused ${secret}`), body: { note: `pasted ${secret}` } }, `failed with ${secret}`);
      await settle();
      expect(logged(), name).not.toContain(randomPart(secret));
    }
    expect(logged()).toContain('[redacted]');
  });

  it('a preview token in the query and a key in the path never reach the request log', async () => {
    const base = `${f.config.server.baseUrl}/api/v1/content/articles`;
    const auth = { Authorization: `Bearer ${secrets.blogKey}` };
    expect((await fetch(`${base}/${secrets.draftSlug}?preview=${secrets.preview}`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${base}/${secrets.apiKey}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${base}/${secrets.draftSlug}?x=1&preview=not-a-token`, { headers: auth })).status).toBe(404);
    await settle();
    const urls = f.lines.filter((l) => l.msg === 'request').map((l) => l.url);
    expect(urls).toEqual(expect.arrayContaining([`/api/v1/content/articles/${secrets.draftSlug}?preview=[redacted]`, '/api/v1/content/articles/[redacted]', `/api/v1/content/articles/${secrets.draftSlug}?x=1&preview=[redacted]`]));
    for (const secret of [secrets.preview, secrets.apiKey, secrets.blogKey]) expect(logged()).not.toContain(randomPart(secret));
  });

  it('the CLI never prints an issued secret an error message quotes', async () => {
    for (const json of [false, true]) {
      const res = await runCli(['blog-key', 'show', '--workspace', secrets.apiKey, ...(json ? ['--json'] : [])], { env: f.env, cwd: f.dir });
      expect(res.code).toBe(1);
      expect(res.stdout + res.stderr).toContain('svc_api_[redacted]');
      expect(res.stdout + res.stderr).not.toContain(randomPart(secrets.apiKey));
    }
  });

  it('a receiver that echoes the signing secret has it redacted in the webhook delivery log', async () => {
    let secret = '';
    const w = await webhookWorld({ script: () => ({ status: 500, body: { echo: `got ${secret}` } }), overrides: { 'webhooks.retrySchedule': [] } });
    secret = w.secret;
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    await w.receiver.waitFor(1);
    let log: Awaited<ReturnType<typeof listWebhookDeliveries>> = [];
    for (let i = 0; i < 300 && log.length === 0; i++) {
      log = await listWebhookDeliveries(w.d.app, w.ws, { articleId: a.id });
      if (!log.length) await new Promise((r) => setTimeout(r, 20));
    }
    expect(log[0].responseExcerpt).toContain('whsec_[redacted]');
    expect(JSON.stringify(log)).not.toContain(randomPart(secret));
  });
});
