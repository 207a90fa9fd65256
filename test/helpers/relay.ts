import net from 'node:net';
import { afterAll } from 'vitest';

/**
 * A TCP relay to host:port that can go silent (stop passing bytes both ways, connections kept:
 * a server paused or partitioned without a reset) and be cut (every connection reset). Closed
 * after the test file.
 */
export async function startRelay(host: string, port: number) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (b) => silent || upstream.write(b));
    upstream.on('data', (b) => silent || client.write(b));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  afterAll(() => {
    cut();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, silence: () => (silent = true), cut };
}
