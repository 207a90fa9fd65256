import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { afterFile } from '../helpers/cleanup.js';
import { startRelay } from '../helpers/relay.js';
import { beforeClose } from '../helpers/settle.js';

/** An echo server and a client that reads what comes back, for the fault proxy's own test. */
async function echoServer(): Promise<number> {
  return (await echoServerSeeing()).port;
}

/** An echo server that also records what its connections saw: a FIN (`end`) and a close, in order. */
async function echoServerSeeing() {
  const seen: string[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => {
    sockets.push(s);
    s.on('error', () => undefined).pipe(s);
    s.on('end', () => seen.push('end'));
    s.on('close', () => seen.push('close'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // Not afterAll: called inside a test, vitest ignores it, and the server outlived the file.
  afterFile(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, seen };
}

function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let got = '';
  const events: string[] = [];
  socket.on('data', (b) => (got += b));
  socket.on('error', (e: NodeJS.ErrnoException) => events.push(e.code ?? 'error'));
  socket.on('close', () => events.push('close'));
  // A refused or reset connect fails here with what happened, rather than never opening.
  const opened = beforeClose(new Promise<void>((r) => socket.once('connect', () => r())), socket, `connecting to ${port}`);
  opened.catch(() => undefined); // a connection expected to be refused never awaits it
  /** Resolves with what arrived once `text` arrived, or rejects after ms. */
  const until = (text: string, ms = 2000) =>
    new Promise<string>((resolve, reject) => {
      const started = Date.now();
      const look = () => (got.includes(text) ? resolve(got) : Date.now() - started > ms ? reject(new Error(`no "${text}" in "${got}"`)) : setTimeout(look, 5));
      look();
    });
  const closed = () => new Promise<void>((r) => (events.includes('close') ? r() : socket.once('close', () => r())));
  return { socket, opened, until, closed, got: () => got, events };
}

describe('the fault proxy', () => {
  it('forwards, silences without closing, releases what it held, delays and resets one connection or all', async () => {
    const relay = await startRelay('127.0.0.1', await echoServer());
    const a = connect(relay.port);
    const b = connect(relay.port);
    await Promise.all([a.opened, b.opened]);
    a.socket.write('a1');
    b.socket.write('b1');
    await Promise.all([a.until('a1'), b.until('b1')]);

    relay.silence(0);
    a.socket.write('a2');
    b.socket.write('b2');
    await b.until('b2');
    // b's echo came back through the same proxy, so a's would have by now too.
    expect(a.got()).toBe('a1');
    expect(a.events).toEqual([]);
    relay.restore(0);
    await a.until('a2');

    relay.delay(150, 'all');
    const sent = Date.now();
    b.socket.write('b3');
    await b.until('b3');
    expect(Date.now() - sent).toBeGreaterThanOrEqual(290); // late both ways
    relay.restore();

    relay.reset(1);
    await b.closed();
    expect(a.socket.destroyed).toBe(false);
    a.socket.write('a3');
    await a.until('a3');
    expect(relay.connections).toEqual([
      { index: 0, open: true, port: a.socket.localPort, upstreamPort: expect.any(Number) },
      { index: 1, open: false, port: expect.any(Number), upstreamPort: expect.any(Number) },
    ]);
    relay.cut();
    await a.closed();
  });

  it('silences only connections opened from now on, and refuses new ones until restored', async () => {
    const relay = await startRelay('127.0.0.1', await echoServer());
    const old = connect(relay.port);
    await old.opened;
    relay.silence('new');
    const fresh = connect(relay.port);
    await fresh.opened;
    fresh.socket.write('f1');
    old.socket.write('o1');
    await old.until('o1');
    expect(fresh.got()).toBe('');
    relay.restore('all');
    await fresh.until('f1');

    await relay.refuse();
    const refused = connect(relay.port);
    await refused.closed();
    expect(refused.events).toEqual(['ECONNREFUSED', 'close']);
    old.socket.write('o2'); // accepted connections stay
    await old.until('o2');
    await relay.restore();
    const again = connect(relay.port);
    await again.opened;
    again.socket.write('x');
    await again.until('x');
    relay.cut();
  });

  it('a silenced link passes no FIN and no close either way, as a dead link would; restore() delivers them', async () => {
    const server = await echoServerSeeing();
    const relay = await startRelay('127.0.0.1', server.port);
    const a = connect(relay.port);
    await a.opened;
    a.socket.write('a1');
    await a.until('a1');
    relay.silence(0);
    // The client says goodbye and then drops its socket: neither reaches the server.
    a.socket.end();
    a.socket.destroy();
    await a.closed();
    expect(relay.connections[0].open, 'the connecting side closed its socket').toBe(false);
    const b = connect(relay.port); // a probe through the same relay: had a's FIN passed, it would be there by now
    await b.opened;
    b.socket.write('b1');
    await b.until('b1');
    expect(server.seen).toEqual([]);
    relay.restore(0);
    const started = Date.now();
    while (!server.seen.includes('close') && Date.now() - started < 2_000) await new Promise((r) => setTimeout(r, 5));
    expect(server.seen[0]).toBe('end');
    expect(server.seen).toContain('close');
    relay.cut();
  });
});
