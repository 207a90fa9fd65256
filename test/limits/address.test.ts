import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/limits/address.js';
import { startDaemon } from '../helpers/daemon.js';

// Issue 22: throttles keyed on the raw address, so one IPv6 host rotating inside its /64 got
// unlimited sign-in guesses and registrations.

describe('addressKey', () => {
  it('groups IPv6 addresses by /64 and leaves IPv4 as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::ffff:c000:201')).toBe('192.0.2.1');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('not an address')).toBe('not an address');
  });
});

describe('per-address limits over IPv6', () => {
  it('registrations from one /64 share one limit; the next /64 has its own', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'server.trustProxy': true, 'limits.registration.perAddress': 3 } });
    const registerFrom = (address: string) =>
      fetch(`${d.url}/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
        body: JSON.stringify({ client_name: 'Agent', redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
      }).then((r) => r.status);
    const statuses = [];
    for (let i = 1; i <= 5; i++) statuses.push(await registerFrom(`2001:db8:1:2::${i.toString(16)}`));
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    expect(await registerFrom('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(429);
    expect(await registerFrom('2001:db8:1:3::1')).toBe(201);
  });

  it('sign-in guesses from one /64 meet the per-address limit together', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'limits.signIn.perAddress': 4 } });
    const outcomes = [];
    for (let i = 1; i <= 6; i++) {
      outcomes.push(
        await d.app.limits.signInAttempt(`user${i}@example.com`, `2001:db8:7:7::${i}`).then(
          () => 'counted',
          (e: { code: string }) => e.code,
        ),
      );
    }
    expect(outcomes).toEqual(['counted', 'counted', 'counted', 'counted', 'too_many_attempts', 'too_many_attempts']);
  });
});
