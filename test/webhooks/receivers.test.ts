import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { FAST } from './setup.js';
import { type TestReceiver, startReceiver } from './receiver.js';

// Issue 25, many receivers: one workspace's slow receiver holds at most
// webhooks.concurrencyPerReceiver of the daemon's webhooks.concurrency attempts, so the others
// keep draining (no head-of-line blocking); a failing one and one answering 410 do not hold anyone either.
describe('many receivers', () => {
  it('healthy receivers all receive while the slow one still holds its requests, which never exceed concurrencyPerReceiver', async () => {
    const d = await startDaemon({ overrides: { ...FAST, 'webhooks.timeout': 30_000, 'webhooks.concurrency': 4, 'webhooks.concurrencyPerReceiver': 2 } });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding = 0;
    let mostHeld = 0;
    const slow = await startReceiver(async () => {
      mostHeld = Math.max(mostHeld, ++holding);
      await released;
      holding--;
      return { status: 200 };
    });
    const failing = await startReceiver(() => ({ status: 500 }));
    const gone = await startReceiver(() => ({ status: 410 }));
    const healthy: TestReceiver[] = [];
    for (let i = 0; i < 6; i++) healthy.push(await startReceiver());

    const each = 3;
    const publishTo = async (receiver: TestReceiver, n: number) => {
      const ws = await seedWorkspace(d.app);
      await setWebhook(d.app, ws, { url: receiver.url });
      const fresh = await getWorkspace(d.app, ws.id);
      for (let i = 0; i < n; i++) await publishArticle(d.app, fresh, (await seedArticle(d.app, fresh)).id);
      return fresh;
    };
    // The slow receiver's events come first, and more of them than all the daemon's slots.
    await publishTo(slow, 6);
    await publishTo(failing, each);
    const goneWs = await publishTo(gone, 1); // its first 410 disables the webhook: nothing more to publish to
    for (const r of healthy) await publishTo(r, each);

    // Every healthy receiver gets all its events while the slow one has not answered once.
    await Promise.all(healthy.map((r) => r.waitFor(each)));
    expect(holding).toBeGreaterThan(0);
    expect(slow.received.length).toBe(2); // its own two slots, no more
    expect(mostHeld).toBe(2);
    await failing.waitFor(1);
    await gone.waitFor(1);
    expect((await d.app.db('connectors').where({ workspace_id: goneWs.id, kind: 'webhook' }).first()).enabled).toBeFalsy();

    release();
    await slow.waitFor(6);
    expect(mostHeld).toBe(2);
    for (const r of healthy) expect(r.received.length).toBe(each);
  });
});
