import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { checkTargetResolves, isNonPublicAddress } from '../../src/webhooks/targets.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

// Issue 11: forms of IPv6 that reach a private or local IPv4 address, and the deprecated ranges.
const REFUSED = [
  '::', '::1', '::127.0.0.1', '::10.0.0.1', '::8.8.8.8', // ::/96, IPv4-compatible included
  '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1', '0000:0000:0000:0000:0000:ffff:0a00:0001', '::ffff:169.254.169.254', // ::ffff:0:0/96
  '::ffff:0:10.0.0.1', // IPv4-translated
  'fec0::1', 'feff:ffff::1', // fec0::/10 site-local
  '2002:7f00:1::1', '2002:0a00:0001::', '2002:c0a8:0101:1::1', '2002:a9fe:a9fe::1', // 6to4 of 127/8, 10/8, 192.168/16, 169.254/16
  '64:ff9b::10.0.0.1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
  '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
];
const ALLOWED = ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '::ffff:5db8:d822', '2002:5db8:d822::1', '64:ff9b::8.8.8.8'];

describe('SSRF guard: which addresses are private', () => {
  it.each(REFUSED)('refuses %s', (address) => expect(isNonPublicAddress(address)).toBe(true));
  it.each(ALLOWED)('allows %s', (address) => expect(isNonPublicAddress(address)).toBe(false));

  it('svc webhook set refuses the new forms with the usual message and hint', async () => {
    const d = await startDaemon({ env: { SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' }, jobs: false });
    const ws = await seedWorkspace(d.app);
    for (const [url, shown] of [
      ['http://[::7f00:1]/x', '::7f00:1'],
      ['http://[0:0:0:0:0:ffff:127.0.0.1]/x', '::ffff:7f00:1'],
      ['http://[fec0::1]/x', 'fec0::1'],
      ['http://[2002:a00:1::1]:8080/x', '2002:a00:1::1'],
    ]) {
      const res = await runCli(['webhook', 'set', '--url', url, '-w', ws.name], { env: d.env, cwd: d.dir });
      expect(res.code, url).toBe(1);
      expect(res.stderr).toContain(`error: Refusing to send webhooks to [${shown}]: it is a loopback or private-network address (${shown})`);
      expect(res.stderr).toContain('hint: To allow it');
    }
  });
});

describe('the check when a webhook is set: its host is resolved', () => {
  const config = (more: Record<string, unknown> = {}) => ({ ...loadConfig({ env: { SVC_DATA_DIR: '/nonexistent' }, cwd: '/nonexistent' }).webhooks, dnsTimeout: 2_000, ...more });
  const check = (url: string, more?: Record<string, unknown>) => checkTargetResolves(new URL(url), config(more));

  it('refuses a name that resolves to a private address, naming the address', async () => {
    await expect(check('http://localhost:8080/hook')).rejects.toMatchObject({
      code: 'webhook_target_refused',
      message: 'Refusing to send webhooks to localhost: it is a loopback or private-network address (127.0.0.1)',
    });
  });

  it('takes a name that does not resolve as not resolved (set anyway, with a note), not as an error', async () => {
    await expect(check('https://nothing-here.invalid/hook')).resolves.toEqual({ resolved: false });
  });

  it('looks nothing up for an allowed host, private networks allowed, or an address', async () => {
    await expect(check('http://localhost/hook', { allowPrivateNetworks: true })).resolves.toEqual({ resolved: true });
    await expect(check('http://LOCALHOST/hook', { allowedHosts: ['localhost'] })).resolves.toEqual({ resolved: true });
    await expect(check('http://8.8.8.8/hook')).resolves.toEqual({ resolved: true });
  });
});
