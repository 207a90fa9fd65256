import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { spawnDaemon } from './daemon-on.js';
import { startReceiver } from './receiver.js';
import { exitOf } from '../helpers/settle.js';

// On PostgreSQL two daemons run side by side; SQLite serves one daemon per file, so there the
// replacement starts after the kill, as systemd would restart it.
describe('kill -9 the daemon holding a lease (two daemons on PostgreSQL, a restart on SQLite)', () => {
  it('the other takes the event over within a few heartbeats (not the whole lease) and then the article’s later events; nothing lost, only the killed attempt repeated', async () => {
    let hold = true;
    // The first delivery is never answered while `hold`: its daemon is killed with it in flight.
    const receiver = await startReceiver(async (_req, i) => {
      while (i === 0 && hold) await new Promise((r) => setTimeout(r, 20));
      return { status: 200 };
    });
    const { dir, env: base } = await freshEnv();
    // A 10 s timeout makes the lease 25 s: only the heartbeat can explain a quick takeover.
    const env = { ...base, SVC_WEBHOOKS_POLL_INTERVAL: '50ms', SVC_WEBHOOKS_TIMEOUT: '10s', SVC_WEBHOOKS_HEARTBEAT_INTERVAL: '100ms', SVC_WEBHOOKS_HEARTBEAT_STALE_AFTER: '1s' };
    const cli = (...args: string[]) => runCli(args, { env, cwd: dir });
    expect((await cli('workspaces', 'add', '--name', 'pair.example', '--website', 'https://pair.example')).code).toBe(0);
    expect((await cli('webhook', 'set', '--url', receiver.url)).code).toBe(0);
    expect((await cli('articles', 'add', '--title', 'Held', '--body', '## Hi\n\nThere.')).code).toBe(0);

    const daemons = PG_URL ? [await spawnDaemon(env, dir), await spawnDaemon(env, dir)] : [await spawnDaemon(env, dir)];
    expect((await cli('articles', 'publish', 'held')).code).toBe(0);
    const [first] = await receiver.waitFor(1);
    expect((await cli('articles', 'publish', 'held')).code).toBe(0); // article.updated, waits behind it

    // svc webhook show says which daemon holds the event.
    const show = await cli('webhook', 'show', '--json');
    const lease = show.json().leases.find((l: { eventId: string }) => l.eventId === first.body.eventId);
    expect(lease).toMatchObject({ event: 'article.published', valid: true, holder: { kind: 'daemon', alive: true } });
    const holder = daemons.find((d) => d.pid === lease.holder.pid)!;
    let survivor = daemons.find((d) => d !== holder);
    expect((await cli('webhook', 'show')).stdout).toMatch(new RegExp(`leases:   ${first.body.eventId} article\\.published of art_\\w+ held by daemon_\\w+ \\(pid ${holder.pid} on `));

    const killedAt = Date.now();
    holder.kill('SIGKILL');
    await exitOf(holder);
    survivor ??= await spawnDaemon(env, dir);
    const got = await receiver.waitFor(3);
    const takeover = Date.now() - killedAt;
    expect(takeover).toBeLessThan(8_000); // 1 s staleness + polls; the lease alone would be 25 s
    expect(got.map((r) => [r.body.event, r.body.eventId])).toEqual([
      ['article.published', first.body.eventId],
      ['article.published', first.body.eventId], // the killed attempt, again: same event id, new delivery id
      ['article.updated', expect.not.stringMatching(first.body.eventId)],
    ]);
    expect(got[1].body.deliveryId).not.toBe(first.body.deliveryId);
    hold = false;

    // svc doctor lists the daemons it sees: the survivor running, the killed one gone.
    const doctor = await cli('doctor', '--json');
    expect(doctor.code).toBe(0);
    const findings = doctor.json().findings as Array<{ level: string; check: string; detail: string }>;
    const daemonLines = findings.filter((f) => f.check === 'daemon');
    expect(daemonLines).toEqual(
      expect.arrayContaining([
        { level: 'ok', check: 'daemon', detail: expect.stringMatching(new RegExp(`^running: daemon_\\w+ \\(pid ${survivor.pid} on .*, seen `)) },
        { level: 'warn', check: 'daemon', detail: expect.stringMatching(new RegExp(`^daemon_\\w+ \\(pid ${holder.pid} on .*, last seen .*: gone, stopped without saying so or killed\\)`)) },
      ]),
    );
    console.log(`takeover after kill -9: ${takeover} ms (heartbeatStaleAfter 1 s, lease 25 s)`);
  });
});
