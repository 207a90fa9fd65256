import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findConnector } from '../../src/connectors/store.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { until } from '../helpers/serve.js';
import { startReceiver } from './receiver.js';
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

describe.skipIf(!PG_URL)('a 410 and a claim made while it is being recorded', () => {
  it('the claim made after the 410 came but before its disable committed is given back unsent', async () => {
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.concurrencyPerReceiver': 1, 'webhooks.pollInterval': 3_600_000 }, script: () => ({ status: 410 }) });
    const webhook = (await findConnector(w.d.app.db, w.ws.id, 'webhook'))!;
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    // The webhook's row locked: the 410's record (its disable) waits; reads, claims and publishes do not.
    const lock = await w.d.app.db.transaction();
    await lock.raw('select id from connectors where id = ? for no key update', [webhook.id]);
    const worker = startWebhookWorker(w.d.app);
    onTestFinished(async () => {
      if (!lock.isCompleted()) await lock.rollback(); // first: stop() waits for the record it holds
      await worker.stop();
    });
    await until(async () => Number((await w.d.app.db.raw(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0].n) > 0, 10_000, 'the 410 being recorded');

    // Claimed now: after the 410 came, before the disable is committed (its read of the webhook saw it enabled).
    const looked = once(w.d.app.events, 'webhooks.looked');
    await publishArticle(w.d.app, w.ws, (await w.article()).id);
    expect(await looked).toEqual([{ claimed: 1 }]);
    await lock.commit();

    await until(async () => !(await findConnector(w.d.app.db, w.ws.id, 'webhook'))?.enabled, 10_000, 'webhook disabled');
    await until(async () => Number((await w.d.app.db('webhook_events').whereNotNull('locked_by').count({ n: '*' }).first())?.n) === 0, 10_000, 'no lease left');
    expect(w.receiver.received).toHaveLength(1);
    expect(Number((await w.d.app.db('webhook_events').where({ status: 'pending', attempts: 0 }).count({ n: '*' }).first())?.n)).toBe(1);
  });
});

describe('a 410 and a claim waiting for a slot of all', () => {
  it('the claim that passed its receiver queue before the 410 came, and waits for a slot of all, is given back unsent', async () => {
    // Two slots in all, two per receiver: another workspace's receiver holds one slot, the 410 takes the other,
    // the second claim of its receiver holds its receiver slot and waits for all (it found no failure to wait for).
    const w = await webhookWorld({ jobs: false, overrides: { 'webhooks.concurrency': 2, 'webhooks.concurrencyPerReceiver': 2, 'webhooks.pollInterval': 3_600_000 }, script: () => ({ status: 410 }) });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const slow = await startReceiver(async () => {
      await released;
      return { status: 200 };
    });
    const other = await seedWorkspace(w.d.app);
    await setWebhook(w.d.app, other, { url: slow.url });
    // Claimed in one batch, in seq order: the slow receiver's event first.
    await publishArticle(w.d.app, await getWorkspace(w.d.app, other.id), (await seedArticle(w.d.app, other)).id);
    for (let i = 0; i < 2; i++) await publishArticle(w.d.app, w.ws, (await w.article()).id);
    const worker = startWebhookWorker(w.d.app);
    onTestFinished(() => {
      release();
      return worker.stop().then(() => undefined);
    });
    expect(await once(w.d.app.events, 'webhooks.looked')).toEqual([{ claimed: 3 }]);

    const gone = await findConnector(w.d.app.db, w.ws.id, 'webhook');
    const events = () => w.d.app.db('webhook_events').where({ connector_id: gone!.id });
    await until(async () => !(await findConnector(w.d.app.db, w.ws.id, 'webhook'))?.enabled, 10_000, 'webhook disabled');
    await until(async () => Number((await events().whereNotNull('locked_by').count({ n: '*' }).first())?.n) === 0, 10_000, 'no lease left');
    expect(w.receiver.received).toHaveLength(1);
    expect(Number((await events().where({ status: 'pending', attempts: 0 }).count({ n: '*' }).first())?.n)).toBe(1);
  });
});
