import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { webhookWorld } from './setup.js';
import { drained } from './view.js';

// Each article's snapshot is its markdown and its html, about 2 x 20 kB.
const BODY = `## Garden\n\n${'Soil, seeds and a patient gardener. '.repeat(560)}`;

/** A receiver holding every answer until `release()`. */
function holdingScript() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { script: async () => (await released, { status: 200 }), release };
}

/** Starts the worker once `n` published articles' events are queued; resolves with the worker's world once it is running. */
async function queued(claimedBytes: number, n: number) {
  const hold = holdingScript();
  const w = await webhookWorld({ jobs: false, script: hold.script, overrides: { 'webhooks.claimedBytes': claimedBytes } });
  onTestFinished(() => hold.release());
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = await w.article({ bodyMarkdown: BODY });
    await publishArticle(w.d.app, w.ws, a.id);
    ids.push(a.id);
  }
  const sizes = (await w.d.app.db('webhook_event_snapshots').select(w.d.app.db.raw('octet_length(snapshot) as n'))).map((r: { n: unknown }) => Number(r.n));
  const worker = startWebhookWorker(w.d.app);
  onTestFinished(() => worker.stop().then(() => undefined));
  return { w, ids, sizes, release: hold.release };
}

/** Events leased and not settled: those the worker holds. */
const leased = async (w: Awaited<ReturnType<typeof queued>>['w']) =>
  Number((await w.d.app.db('webhook_events').where('status', 'pending').whereNotNull('locked_by').count({ n: '*' }).first())!.n);

describe('the memory the worker holds for claimed events (webhooks.claimedBytes)', () => {
  it('claims only the events whose snapshots fit, and the rest as the first are delivered', async () => {
    const { w, ids, sizes, release } = await queued(100_000, 6);
    // Two snapshots fit in 100,000 bytes, three do not.
    expect(sizes.every((s) => s > 100_000 / 3 && s <= 100_000 / 2)).toBe(true);
    await w.receiver.waitFor(2);
    // A later look (the next poll) takes nothing more: two held, two sent, though the receiver has slots for four.
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 0 }]);
    expect(await leased(w)).toBe(2);
    expect(w.receiver.received).toHaveLength(2);
    release();
    await drained(w.d.app);
    expect(w.receiver.received.map((r) => r.body.article.id).sort()).toEqual([...ids].sort());
    expect(Number((await w.d.app.db('webhook_events').where('status', 'delivered').count({ n: '*' }).first())!.n)).toBe(6);
  });

  it('an event larger than claimedBytes is still delivered, alone', async () => {
    const { w, ids, release } = await queued(1_000, 3);
    await w.receiver.waitFor(1);
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 0 }]);
    expect(await leased(w)).toBe(1);
    expect(w.receiver.received).toHaveLength(1);
    release();
    await drained(w.d.app);
    expect(w.receiver.received.map((r) => r.body.article.id).sort()).toEqual([...ids].sort());
  });
});
