import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.js';
import { writerOf } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { disableWebhook, setWebhook } from '../../src/webhooks/service.js';
import { createWorkspace } from '../../src/workspaces/service.js';
import { createUser } from '../../src/workspaces/users.js';
import { PG_URL } from '../helpers/env.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';

/**
 * SQLite: `write` runs while a transaction holds the process's writer for longer than busy_timeout. It must queue for the
 * writer, not wait at SQLite's lock on a read connection and fail busy there. The transaction ends once `write` waits in
 * the writer's pool (or has ended: it failed).
 */
async function whileWriterHeld<T>(app: Awaited<ReturnType<typeof startDaemon>>['app'], write: () => Promise<T>): Promise<T> {
  const pool = writerOf(app.db).client.pool as { numPendingAcquires(): number };
  let outcome: Promise<T> | undefined;
  await withTransaction(app.db, async (trx) => {
    await trx('workspaces').where({ id: 'none' }).update({ name: 'x' }); // the write lock is ours from here
    outcome = write();
    let settled = false;
    void outcome.then(() => (settled = true), () => (settled = true));
    while (!settled && pool.numPendingAcquires() === 0) await new Promise((r) => setTimeout(r, 10));
  });
  return outcome!;
}

describe.skipIf(PG_URL)("writes outside a transaction go to SQLite's writer", () => {
  it('revoking an API key and disabling a webhook wait for the writer held past busy_timeout, and succeed', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'database.busyTimeout': 100 } });
    const ws = await seedWorkspace(d.app, { websiteUrl: 'https://example.com' });
    const user = await seedUser(d.app, ws);
    const key = await createApiKey(d.app, { workspaceId: ws.id, userId: user.id, name: 'ci', scopes: ['read'] });
    await setWebhook(d.app, ws, { url: 'https://hooks.example.com/svc' });

    expect((await whileWriterHeld(d.app, () => revokeApiKey(d.app, ws.id, key.id))).id).toBe(key.id);
    expect((await d.app.db('api_keys').where({ id: key.id }).first()).revoked_at).toEqual(expect.any(String));
    expect((await whileWriterHeld(d.app, () => disableWebhook(d.app, ws))).enabled).toBe(false);
  });

  it('creating a workspace and a user waits for the writer held past busy_timeout, and succeeds', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'database.busyTimeout': 100 } });

    expect((await whileWriterHeld(d.app, () => createWorkspace(d.app, { name: 'held.example', websiteUrl: 'https://example.com' }))).name).toBe('held.example');
    expect((await whileWriterHeld(d.app, () => createUser(d.app, { email: 'held@example.com', password: 'correct horse battery' }))).email).toBe('held@example.com');
  });
});
