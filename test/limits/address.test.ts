import { describe, expect, it } from 'vitest';
import { addressKey, networkKey } from '../../src/limits/address.js';
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

  it('networkKey groups IPv6 addresses by /48 and leaves IPv4 as it is', () => {
    expect(networkKey('2001:db8:1:2::1')).toBe('2001:db8:1::/48');
    expect(networkKey('2001:db8:1:ffff::1')).toBe('2001:db8:1::/48');
    expect(networkKey('203.0.113.7')).toBe('203.0.113.7');
    expect(networkKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
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

  it('registrations from the /64s of one /48 meet limits.registration.perNetwork together: each /64 alone would let the /48 store 65,536 times perAddress clients', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'server.trustProxy': true, 'limits.registration.perAddress': 2, 'limits.registration.perNetwork': 5 } });
    const registerFrom = (address: string) =>
      fetch(`${d.url}/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
        body: JSON.stringify({ client_name: 'Agent', redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
      }).then(async (r) => `${r.status}${r.status === 429 ? ` ${((await r.json()) as { error_description: string }).error_description.split('.')[0]}` : ''}`);
    const statuses = [];
    for (let i = 1; i <= 7; i++) statuses.push(await registerFrom(`2001:db8:5:${i.toString(16)}::1`));
    const refused = '429 Too many client registrations from this network';
    expect(statuses).toEqual(['201', '201', '201', '201', '201', refused, refused]);
    expect(await registerFrom('2001:db8:6:1::1')).toBe('201');
    expect(Number((await d.app.db('oauth_clients').count({ n: '*' }).first())!.n)).toBe(6);
  });

  it('sign-in guesses from the /64s of one /48 meet limits.signIn.perNetwork together', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'limits.signIn.perAddress': 2, 'limits.signIn.perNetwork': 5 } });
    const outcomes = [];
    for (let i = 1; i <= 7; i++) {
      outcomes.push(
        await d.app.limits.signInAttempt('someone@example.com', `2001:db8:8:${i.toString(16)}::1`).then(
          () => 'counted',
          (e: { code: string }) => e.code,
        ),
      );
    }
    expect(outcomes).toEqual(['counted', 'counted', 'counted', 'counted', 'counted', 'too_many_attempts', 'too_many_attempts']);
    expect(await d.app.limits.signInAttempt('someone@example.com', '2001:db8:9:1::1').then(() => 'counted')).toBe('counted');
  });

  it('an IPv4 address is its own network: an operator who raised perAddress above perNetwork (clients behind one NAT) gets perAddress', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'limits.signIn.perAddress': 6, 'limits.signIn.perNetwork': 3, 'limits.registration.perAddress': 6, 'limits.registration.perNetwork': 3 } });
    const outcomes: string[] = [];
    for (let i = 1; i <= 7; i++) {
      const signIn = await d.app.limits.signInAttempt(`user${i}@example.com`, '203.0.113.9').then(() => 'counted', (e: { code: string }) => e.code);
      const registration = await d.app.limits.registration('203.0.113.9').then(() => 'counted', (e: { code: string }) => e.code);
      outcomes.push(`${signIn}/${registration}`);
    }
    expect(outcomes).toEqual([...Array(6).fill('counted/counted'), 'too_many_attempts/rate_limited']);
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
