import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';
import { freshConfig } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';

describe('request log', () => {
  it('logs the status actually sent, also for routes that write the raw response (MCP 202), and never the key', async () => {
    const server = await bindServer(0, '127.0.0.1');
    const port = (server.address() as { port: number }).port;
    const { config } = await freshConfig({ 'server.host': '127.0.0.1', 'server.port': port });
    const stream = new PassThrough();
    let logged = '';
    stream.on('data', (d) => (logged += d));
    const app = await createApp({ config, log: createLogger('info', stream) });
    const http = createHttpServer(app, server);
    afterAll(async () => {
      await http.close();
      await app.close();
    });
    const ws = await seedWorkspace(app);
    const user = await seedUser(app, ws, 'admin');
    const { key } = await createApiKey(app, { workspaceId: ws.id, userId: user.id, name: 'log test', scopes: ['read'] });

    const res = await fetch(`${config.server.baseUrl}/api/mcp?key=secret-in-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    const line = logged
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request' && l.url.startsWith('/api/mcp'));
    expect(line).toMatchObject({ method: 'POST', status: 202, url: '/api/mcp?key=[redacted]' });
    expect(logged).not.toContain(key);
    expect(logged).not.toContain('secret-in-url');
  });
});
