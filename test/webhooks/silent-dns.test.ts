import { spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as packet from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { resolveHost } from '../../src/webhooks/resolve-host.js';
import { afterFile } from '../helpers/cleanup.js';
import { startDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { startReceiver } from './receiver.js';

describe('resolving a receiver host', () => {
  it('finds a name DNS does not have through the system (/etc/hosts), and says when a name is not found', async () => {
    expect(await resolveHost('localhost', 2_000)).toContainEqual({ address: '127.0.0.1', family: 4 });
    await expect(resolveHost('nothing-here.invalid', 2_000)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

// A daemon whose resolv.conf names a DNS server that answers for *.good.test and never answers for *.dead.test
// (the system resolver then waits 30 s a lookup): a mount namespace gives the daemon its own /etc/resolv.conf,
// and the server listens on port 53, so this needs root and unshare (CI runs as root).
const DNS_HOST = '127.0.0.77';
const isolatable = process.getuid?.() === 0 && spawnSync('unshare', ['-m', '--propagation', 'private', 'true']).status === 0;

async function fakeDns(): Promise<{ asked: string[] }> {
  const asked: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    const query = packet.decode(msg);
    const q = query.questions?.[0];
    if (!q) return;
    asked.push(`${q.type} ${q.name}`);
    if (q.name.endsWith('.dead.test')) return; // silent
    const good = q.name.endsWith('.good.test');
    const answers = good && q.type === 'A' ? [{ type: 'A' as const, name: q.name, ttl: 60, data: '127.0.0.1' }] : [];
    const reply = packet.encode({ id: query.id, type: 'response', flags: packet.RECURSION_AVAILABLE | (good ? 0 : 3), questions: query.questions, answers });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, DNS_HOST, () => resolve());
  });
  afterFile(() => socket.close());
  return { asked };
}

describe('a receiver whose DNS is silent', () => {
  it.skipIf(!isolatable)('does not hold back a receiver whose DNS answers, and its attempts fail within webhooks.dnsTimeout', async () => {
    const dns = await fakeDns();
    const resolvConf = path.join(tempDir(), 'resolv.conf');
    writeFileSync(resolvConf, `nameserver ${DNS_HOST}\noptions timeout:30 attempts:1\n`);
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const seed = await startDaemon({ jobs: false });
    // Three receivers whose DNS is silent, their four slots each taken: twelve lookups, more than the eight
    // the daemon's thread pool (16) lets the system resolver hold at once.
    for (let i = 0; i < 3; i++) {
      const ws = await seedWorkspace(seed.app);
      await setWebhook(seed.app, ws, { url: `http://h${i}.dead.test:${port}/hook` });
      for (let k = 0; k < 4; k++) await publishArticle(seed.app, ws, (await seedArticle(seed.app, ws)).id);
    }
    const good = await seedWorkspace(seed.app);
    await setWebhook(seed.app, good, { url: `http://hooks.good.test:${port}/hook` });
    const article = await seedArticle(seed.app, good);
    await publishArticle(seed.app, good, article.id);

    const daemon = await serve(
      { ...seed.env, SVC_WEBHOOKS_DNS_TIMEOUT: '1s', SVC_WEBHOOKS_POLL_INTERVAL: '100ms' },
      seed.dir,
      { prefix: ['unshare', '-m', '--propagation', 'private', '/bin/sh', '-c', `mount --bind ${resolvConf} /etc/resolv.conf && exec "$0" "$@"`] },
    );
    const [delivered] = await receiver.waitFor(1);
    expect(delivered.headers.host).toBe(`hooks.good.test:${port}`);
    expect(delivered.body.article.id).toBe(article.id);

    // The others failed, each within the second webhooks.dnsTimeout gives it, naming the host.
    const failed = async () => (await seed.app.db('webhook_deliveries').where({ ok: false }).pluck('error')) as string[];
    const deadline = Date.now() + 10_000;
    while ((await failed()).length < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const errors = await failed();
    expect(errors).toHaveLength(12);
    for (const e of errors) expect(e).toMatch(/^DNS did not answer for h[0-2]\.dead\.test within 1000 ms$/);
    expect(dns.asked).toContain('A hooks.good.test');
    expect(daemon.child.exitCode).toBeNull();
  }, 30_000);
});
