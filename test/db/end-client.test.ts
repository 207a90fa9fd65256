import net from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { endClient } from '../../src/db/connect.js';
import { PG_URL } from '../helpers/env.js';

// pg's end() says goodbye and waits for the server to close its side; over a link gone silent that
// never comes, and whoever awaited it (the migration lock's release on a daemon's start, the held
// freshness connection on its stop) would wait for TCP keepalive, minutes. endClient cuts it.
describe.skipIf(!PG_URL)('ending a connection of our own', () => {
  const sockets: net.Socket[] = [];
  const servers: net.Server[] = [];
  afterAll(() => {
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
  });

  /**
   * A client through a link that can go silent the way a dropped NAT mapping is: nothing passes
   * either way, not even the client's FIN (the fault proxy of helpers/relay.ts still lets a FIN
   * through, as its sockets close their side when the other does).
   */
  async function clientThroughLink() {
    const direct = new URL(PG_URL!);
    let silent = false;
    const server = net.createServer({ allowHalfOpen: true }, (near) => {
      const far = net.connect({ host: direct.hostname, port: Number(direct.port || 5432), allowHalfOpen: true });
      sockets.push(near, far);
      for (const [from, to] of [[near, far], [far, near]]) {
        from.on('error', () => undefined);
        from.on('data', (d) => silent || to.write(d));
        from.on('end', () => silent || to.end());
      }
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const viaLink = new URL(direct);
    viaLink.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const client = new pg.Client({ connectionString: viaLink.toString() });
    client.on('error', () => undefined);
    await client.connect();
    expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
    return { client, silence: () => (silent = true) };
  }

  it('ends politely when the server answers, and is cut after its deadline when the link is silent', async () => {
    const polite = await clientThroughLink();
    const started = performance.now();
    await endClient(polite.client, 5_000);
    expect(performance.now() - started, 'the server closed its side: no waiting for the deadline').toBeLessThan(2_000);

    const silent = await clientThroughLink();
    silent.silence();
    // pg's own end() over this link does not settle within a second (the goodbye is never answered)...
    const bare = await clientThroughLink();
    bare.silence();
    const bareEnd = bare.client.end().then(() => 'ended');
    expect(await Promise.race([bareEnd, new Promise((ok) => setTimeout(() => ok('still waiting'), 1_000))])).toBe('still waiting');
    // ...endClient's does, at its deadline.
    let ended = false;
    const ending = endClient(silent.client, 300).then(() => (ended = true));
    await new Promise((ok) => setTimeout(ok, 150));
    expect(ended, 'not before the deadline').toBe(false);
    await ending;
    expect(ended).toBe(true);
  });
});
