import net from 'node:net';
import { afterFile } from './cleanup.js';

/**
 * A TCP fault proxy to host:port for tests that break the network on purpose. Closed after the
 * test file. Every connection accepted is numbered from 0 in the order it was opened.
 *
 *   const relay = await startRelay(host, port);   // forwards everything; relay.port is where to connect
 *   relay.silence(which?)  // pass nothing either way, not even a close: a FIN or a reset from one side is held
 *                          // too, its peer stays open (a dropped NAT mapping, a paused server, a pulled cable)
 *   relay.delay(ms, which?) // pass bytes, each chunk ms late
 *   relay.reset(which?)    // destroy the matching connections now (both sides see a reset/close)
 *   relay.refuse()         // new connections are refused (ECONNREFUSED: nothing listens, as a stopped server); open ones
 *                          // stay as they are; restore() listens again on the same port
 *   relay.restore(which?)  // forward normally again (the silent ones get what was held back, closes included)
 *   relay.cut()            // reset(): every connection, kept for the old API
 *   relay.connections      // { index, open, port, upstreamPort } of each connection accepted so far (open: the
 *                          // connecting side has not closed or half-closed its socket, whatever passed on; port: the
 *                          // connecting side's; upstreamPort: the relay's own towards host:port, what that server sees)
 *
 * `which` picks connections: omitted or 'all' (every connection, open now or opened later),
 * 'new' (only connections opened from now on), a number (that connection's index) or a
 * predicate over the connection's index. A later call wins over an earlier one for the
 * connections both match.
 */
export type Which = 'all' | 'new' | number | ((index: number) => boolean);

type Mode = { kind: 'forward' } | { kind: 'silent' } | { kind: 'delay'; ms: number };

interface Link {
  index: number;
  client: net.Socket;
  upstream: net.Socket;
  mode: Mode;
  /** Bytes held back while silent, per direction, released by restore(); `end`: that side's FIN, `close`: that side gone. */
  held: Array<{ to: net.Socket; bytes?: Buffer; end?: true; close?: true }>;
  open: boolean;
  /** The connecting side's port, read when accepted (a closed socket no longer knows it). */
  port: number | undefined;
  /** The relay's port on its connection to host:port (PostgreSQL's pg_stat_activity.client_port), once connected. */
  upstreamPort: number | undefined;
}

export interface Relay {
  port: number;
  silence(which?: Which): void;
  delay(ms: number, which?: Which): void;
  reset(which?: Which): void;
  refuse(): Promise<void>;
  /** Returns once the relay listens again (after refuse()). */
  restore(which?: Which): Promise<void>;
  cut(): void;
  readonly connections: ReadonlyArray<{ index: number; open: boolean; port: number | undefined; upstreamPort: number | undefined }>;
}

export async function startRelay(host: string, port: number): Promise<Relay> {
  const links: Link[] = [];
  let refusing = false;
  /** Modes for connections not yet opened: the latest rule that covers future connections. */
  let future: Mode = { kind: 'forward' };

  const pass = (link: Link, to: net.Socket, bytes: Buffer) => {
    const { mode } = link;
    if (mode.kind === 'forward') to.write(bytes);
    else if (mode.kind === 'silent') link.held.push({ to, bytes });
    else setTimeout(() => to.writable && to.write(bytes), mode.ms);
  };
  /** What arrived (bytes, a FIN, a close) goes on to `to`, in order. */
  const deliver = (link: Link, item: Link['held'][number]) => {
    const { to } = item;
    if (item.bytes) {
      if (to.writable) to.write(item.bytes);
    } else if (item.end) to.end();
    else to.destroy();
  };
  /** A FIN or a close from one side: passed on now, later (delay) or once restored (silent). */
  const passClose = (link: Link, item: { to: net.Socket; end?: true; close?: true }) => {
    const { mode } = link;
    if (mode.kind === 'silent') link.held.push(item);
    else if (mode.kind === 'delay') setTimeout(() => deliver(link, item), mode.ms);
    else deliver(link, item);
  };

  // Half-open allowed on both sockets: a side's FIN is passed on (or held) by the relay itself, so
  // a silent link keeps its other side open, as a dead link would.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port, host, allowHalfOpen: true });
    const link: Link = { index: links.length, client, upstream, mode: future, held: [], open: true, port: client.remotePort, upstreamPort: undefined };
    links.push(link);
    upstream.once('connect', () => (link.upstreamPort = upstream.localPort));
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.on('data', (b) => pass(link, upstream, b));
    upstream.on('data', (b) => pass(link, client, b));
    client.on('end', () => {
      link.open = false;
      passClose(link, { to: upstream, end: true });
    });
    upstream.on('end', () => passClose(link, { to: client, end: true }));
    client.on('close', () => {
      link.open = false;
      passClose(link, { to: upstream, close: true });
    });
    upstream.on('close', () => passClose(link, { to: client, close: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as net.AddressInfo).port;

  const matching = (which: Which = 'all'): Link[] => {
    if (which === 'new') return [];
    if (which === 'all') return links;
    if (typeof which === 'number') return links.filter((l) => l.index === which);
    return links.filter((l) => which(l.index));
  };
  const setMode = (mode: Mode, which: Which = 'all') => {
    if (which === 'all' || which === 'new') future = mode;
    for (const link of matching(which)) {
      link.mode = mode;
      if (mode.kind !== 'silent') for (const item of link.held.splice(0)) deliver(link, item);
    }
  };
  const reset = (which: Which = 'all') => {
    for (const link of matching(which)) {
      link.client.resetAndDestroy();
      link.upstream.resetAndDestroy();
    }
  };
  afterFile(() => {
    reset();
    server.close();
  });
  return {
    port: relayPort,
    silence: (which) => setMode({ kind: 'silent' }, which),
    delay: (ms, which) => setMode({ kind: 'delay', ms }, which),
    restore: async (which) => {
      setMode({ kind: 'forward' }, which);
      if ((which === undefined || which === 'all') && refusing) {
        refusing = false;
        await new Promise<void>((resolve) => server.listen(relayPort, '127.0.0.1', resolve));
      }
    },
    reset,
    // Closing the listener refuses new connections at the kernel (a reset to the SYN) and keeps
    // the accepted ones; the port stays this relay's to listen on again.
    refuse: async () => {
      if (refusing) return;
      refusing = true;
      server.close();
    },
    cut: () => reset(),
    get connections() {
      return links.map((l) => ({ index: l.index, open: l.open, port: l.port, upstreamPort: l.upstreamPort }));
    },
  };
}
