import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { endClient } from '../../src/db/connect.js';
import { PG_URL } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';

// pg's end() says goodbye and waits for the server to close its side; over a link gone silent that
// never comes, and whoever awaited it (the migration lock's release on a daemon's start, the held
// freshness connection on its stop) would wait for TCP keepalive, minutes. endClient cuts it.
describe.skipIf(!PG_URL)('ending a connection of our own', () => {
  /** A client through the fault proxy, whose silence holds even the client's FIN (a dropped NAT mapping). */
  async function clientThroughLink() {
    const direct = new URL(PG_URL!);
    const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
    const viaLink = new URL(direct);
    viaLink.host = `127.0.0.1:${relay.port}`;
    const client = new pg.Client({ connectionString: viaLink.toString() });
    client.on('error', () => undefined);
    await client.connect();
    expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
    return { client, silence: () => relay.silence() };
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
