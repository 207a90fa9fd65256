import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { until } from '../helpers/serve.js';
import { webhookWorld } from './setup.js';

describe('a 410 and the claims waiting for its slot', () => {
  it('the claim waiting behind the attempt answered 410 is given back unsent: the receiver gets one request', async () => {
    // One slot: the second claim waits for it, and takes it the moment the first attempt is answered (before its 410 is committed).
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.concurrencyPerReceiver': 1, 'webhooks.pollInterval': 3_600_000 }, script: () => ({ status: 410 }) });
    for (let i = 0; i < 3; i++) await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const worker = startWebhookWorker(w.d.app);
    onTestFinished(() => worker.stop().then(() => undefined));
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 2 }]); // two claims ahead of one slot

    // Both claims done with: the first recorded (410), the second given back or, sent, recorded too.
    await until(async () => !(await findConnector(w.d.app.db, w.ws.id, 'webhook'))?.enabled, 10_000, 'webhook disabled');
    await until(async () => Number((await w.d.app.db('webhook_events').whereNotNull('locked_by').count({ n: '*' }).first())?.n) === 0, 10_000, 'no lease left');
    expect(w.receiver.received).toHaveLength(1);
    expect(Number((await w.d.app.db('webhook_events').where({ status: 'pending', attempts: 0 }).count({ n: '*' }).first())?.n)).toBe(2); // the third never claimed
  });
});
