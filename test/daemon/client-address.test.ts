import { describe, expect, it } from 'vitest';
import { loggedDaemon } from '../helpers/logged-daemon.js';

/** A daemon whose log lines the test reads: the request log names the client address. */
async function addressDaemon(overrides: Record<string, unknown>) {
  const { config, lines } = await loggedDaemon(overrides);
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
    const d = await addressDaemon({});
    expect(await d.addressFor('203.0.113.9')).toBe('127.0.0.1');
  });

  it('behind one proxy, the entry the proxy appended (the rightmost), never what the client wrote', async () => {
    const d = await addressDaemon({ 'server.trustProxy': true });
    expect(await d.addressFor('203.0.113.9')).toBe('203.0.113.9');
    // The client sent "X-Forwarded-For: 198.51.100.7" itself; the proxy appended what it saw.
    expect(await d.addressFor('198.51.100.7, 203.0.113.9')).toBe('203.0.113.9');
    expect(await d.addressFor('1.1.1.1, 2.2.2.2,3.3.3.3, 203.0.113.9')).toBe('203.0.113.9');
    expect(await d.addressFor()).toBe('127.0.0.1');
  });

  it('behind two proxies (proxyHops: 2), the entry two places from the right', async () => {
    const d = await addressDaemon({ 'server.trustProxy': true, 'server.proxyHops': 2 });
    expect(await d.addressFor('198.51.100.7, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(await d.addressFor('203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
  });
});
