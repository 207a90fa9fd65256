import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

// Issue 22: wrong blog keys had no per-address limit (584 distinct keys a second from one
// address, a database lookup each).

describe('wrong blog keys, per address', () => {
  it('an address sending too many refused keys gets 429 until the window ends; other addresses are not concerned', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock, overrides: { 'server.trustProxy': true, 'limits.wrongBlogKey.perAddress': 5 } });
    const { key } = await generateBlogKey(d.app, await seedWorkspace(d.app));
    const get = (address: string, k: string) => fetch(`${d.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${k}`, 'X-Forwarded-For': address } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await get('203.0.113.40', `wrong-key-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = await get('203.0.113.40', 'another-wrong-key');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    // The address is refused whatever it sends until the window ends (the key is not looked at).
    expect((await get('203.0.113.40', key)).status).toBe(429);
    expect((await get('198.51.100.40', key)).status).toBe(200);
    expect((await get('198.51.100.40', 'wrong')).status).toBe(401);
    clock.advance(61_000);
    expect((await get('203.0.113.40', key)).status).toBe(200);
    expect((await get('203.0.113.40', 'wrong')).status).toBe(401);
  });
});
