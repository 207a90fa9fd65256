import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { browserPath } from '../helpers/browser.js';
import { afterFile } from '../helpers/cleanup.js';

export const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/oauth');

/**
 * Headless Chromium or Chrome (helpers/browser.ts finds it), closed after the file. playwright-core
 * is loaded here, not with this module: two dozen files use the other helpers, and loading it
 * took each of them 0.6-2 s.
 */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: browserPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  afterFile(() => browser.close());
  return browser;
}

/** A loopback "native app" redirect target that records each callback's query. */
export async function callbackServer(): Promise<{ url: string; /** The next callback's query; fails after ms (15 s). */ next(ms?: number): Promise<URLSearchParams> }> {
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
    next: (ms = 15_000) => {
      if (received.length) return Promise.resolve(received.shift()!);
      const p = new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          reject(new Error(`no callback to http://127.0.0.1:${port}/callback within ${ms} ms`));
        }, ms);
        const take = (q: URLSearchParams) => (clearTimeout(timer), resolve(q));
        waiting.push(take);
      });
      p.catch(() => undefined); // taken before the click that leads to it: a click that failed failed the test already
      return p;
    },
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
