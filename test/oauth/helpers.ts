import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Browser, chromium } from 'playwright-core';
import { browserPath } from '../helpers/browser.js';
import { afterFile } from '../helpers/cleanup.js';

export const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/oauth');

/** Headless Chromium or Chrome (helpers/browser.ts finds it), closed after the file. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: browserPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  afterFile(() => browser.close());
  return browser;
}

/** A loopback "native app" redirect target that records each callback's query. */
export async function callbackServer(): Promise<{ url: string; next(): Promise<URLSearchParams> }> {
  const waiting: Array<(q: URLSearchParams) => void> = [];
  const received: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const w = waiting.shift();
    if (w) w(q);
    else received.push(q);
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Done</title><p>You can close this window.</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  afterFile(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => (received.length ? Promise.resolve(received.shift()!) : new Promise((r) => waiting.push(r))),
  };
}

/** An in-memory OAuthClientProvider, as an MCP client app would keep it. */
export class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly stateValue = randomBytes(16).toString('hex');
  constructor(
    readonly redirect: string,
    readonly meta: Partial<OAuthClientMetadata> = {},
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test Agent', redirect_uris: [this.redirect], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...this.meta };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A PKCE pair (RFC 7636, S256), computed independently of src/. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
