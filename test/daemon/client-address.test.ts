import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';
import { freshConfig } from '../helpers/env.js';

/** A daemon whose log lines the test reads: the request log names the client address. */
async function loggedDaemon(overrides: Record<string, unknown>) {
  const server = await bindServer(0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  const { config } = await freshConfig({ 'server.host': '127.0.0.1', 'server.port': port, ...overrides });
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  stream.on('data', (d) => {
    buffered += d;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const p of parts) if (p) lines.push(JSON.parse(p));
  });
  const app = await createApp({ config, log: createLogger('info', stream) });
  const http = createHttpServer(app, server);
  afterAll(async () => {
    await http.close();
    await app.close();
  });
  /** The address the request log gave a request carrying this X-Forwarded-For. */
  const addressFor = async (forwardedFor?: string) => {
    const requestId = `req-${Math.random().toString(36).slice(2)}`;
    await (await fetch(`${config.server.baseUrl}/healthz`, { headers: { 'X-Request-Id': requestId, ...(forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}) } })).text();
    for (let i = 0; i < 50 && !lines.some((l) => l.requestId === requestId); i++) await new Promise((r) => setImmediate(r));
    return lines.find((l) => l.requestId === requestId && l.msg === 'request')?.address;
  };
  return { addressFor };
}

describe('the client address (server.trustProxy, server.proxyHops)', () => {
  it('without trustProxy, X-Forwarded-For is ignored: the peer address', async () => {
    const d = await loggedDaemon({});
    expect(await d.addressFor('203.0.113.9')).toBe('127.0.0.1');
  });

  it('behind one proxy, the entry the proxy appended (the rightmost), never what the client wrote', async () => {
    const d = await loggedDaemon({ 'server.trustProxy': true });
    expect(await d.addressFor('203.0.113.9')).toBe('203.0.113.9');
    // The client sent "X-Forwarded-For: 198.51.100.7" itself; the proxy appended what it saw.
    expect(await d.addressFor('198.51.100.7, 203.0.113.9')).toBe('203.0.113.9');
    expect(await d.addressFor('1.1.1.1, 2.2.2.2,3.3.3.3, 203.0.113.9')).toBe('203.0.113.9');
    expect(await d.addressFor()).toBe('127.0.0.1');
  });

  it('behind two proxies (proxyHops: 2), the entry two places from the right', async () => {
    const d = await loggedDaemon({ 'server.trustProxy': true, 'server.proxyHops': 2 });
    expect(await d.addressFor('198.51.100.7, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(await d.addressFor('203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
  });
});
