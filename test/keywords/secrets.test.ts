import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config/load.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';
import { initialised } from '../cli/sandbox.js';
import { freshEnv } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect } from '../mcp/helpers.js';
import { ERRORS, type FakeDataForSeo, startFakeDataForSeo } from './fake-dataforseo.js';

/** Every form the DataForSEO credentials could leak in. */
function secretsOf(fake: FakeDataForSeo): string[] {
  const basic = Buffer.from(`${fake.login}:${fake.password}`).toString('base64');
  return [fake.password, basic, `Basic ${basic}`];
}

const expectNoSecrets = (text: string, fake: FakeDataForSeo) => {
  for (const s of secretsOf(fake)) expect(text.includes(s), `"${s}" appears in:\n${text}`).toBe(false);
};

describe('DataForSEO credentials never reach logs or answers', () => {
  it('CLI lookups at log level trace: success, refused login, 5xx retries, unreachable provider', async () => {
    const b = await initialised();
    const fake = await startFakeDataForSeo();
    const run = (args: string[], env: Record<string, string> = {}) => b.cli(args, { env: { ...fake.env, SVC_LOG_LEVEL: 'trace', ...env } });
    const outputs: string[] = [];
    const ok = await run(['keywords', 'lookup', 'pour over', '--ideas', '3']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('"msg":"keyword provider call"'); // the calls are logged, at debug
    outputs.push(ok.stdout, ok.stderr);
    fake.queue(ERRORS.server, ERRORS.server, ERRORS.server);
    outputs.push(...Object.values(await run(['keywords', 'lookup', 'chemex'])).filter((v): v is string => typeof v === 'string'));
    const denied = await run(['keywords', 'lookup', 'moka pot', '--json'], { SVC_KEYWORDS_DATAFORSEO_PASSWORD: 'wrong-password' });
    expect(denied.json()).toMatchObject({ error: { code: 'provider_auth_failed' } });
    outputs.push(denied.stdout, denied.stderr);
    const closed = await bindServer(0, '127.0.0.1');
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const gone = await run(['keywords', 'lookup', 'siphon'], { SVC_KEYWORDS_DATAFORSEO_BASE_URL: `http://127.0.0.1:${port}` });
    expect(gone.stderr).toContain('error: DataForSEO could not be reached (ECONNREFUSED); tried 3 times. Try again later. No keyword lookup credit was spent.');
    outputs.push(gone.stdout, gone.stderr);
    // The fake did receive them (so the test would see them if they were printed).
    expect(fake.requests.some((r) => r.authorization === `Basic ${Buffer.from(`${fake.login}:${fake.password}`).toString('base64')}`)).toBe(true);
    expectNoSecrets(outputs.join('\n'), fake);
  });

  it('the daemon log at level trace while agents research, succeed and fail', async () => {
    const fake = await startFakeDataForSeo();
    const { dir, env } = await freshEnv(fake.env);
    const server = await bindServer(0, '127.0.0.1');
    const port = (server.address() as { port: number }).port;
    const config = loadConfig({ env, cwd: dir, overrides: { 'server.host': '127.0.0.1', 'server.port': port } });
    let log = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
    const app = await createApp({ config, log: createLogger('trace', sink) });
    const http = createHttpServer(app, server);
    try {
      const ws = await seedWorkspace(app);
      const admin = await seedUser(app, ws, 'admin');
      const { key } = await createApiKey(app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'content'] });
      const agent = await connect({ app, config, url: config.server.baseUrl, env, dir, http, stop: async () => {} }, key);
      expect((await agent.call('research_keywords', { keywords: ['latte art'], includeIdeas: true })).isError).toBeFalsy();
      fake.queue(ERRORS.auth);
      const denied = await agent.call('research_keywords', { keywords: ['flat white'] });
      expect(denied.text).toMatch(/^DataForSEO refused the API login/);
      expectNoSecrets(denied.text, fake);
      expect(log).toContain('keyword provider call');
      expect(log).toContain('DataForSEO refused the API login');
      expectNoSecrets(log, fake);
      expect(log).not.toContain(fake.login);
    } finally {
      await http.close();
      await app.close();
    }
  });
});
