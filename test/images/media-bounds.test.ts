import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { addImage } from '../../src/images/service.js';
import { seedWorkspace } from '../helpers/seed.js';
import { startDaemon, startDaemonOn, type TestDaemon } from '../helpers/daemon.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';
import { png } from './png.js';

const MB = 1024 * 1024;

/** A PNG of about `size` bytes: a real image with padding between its IDAT and IEND chunks. */
const largePng = (size: number, seed: number) => {
  const p = png(4, 4, seed);
  return Buffer.concat([p.subarray(0, -12), Buffer.alloc(size), p.subarray(-12)]);
};

/**
 * A client that asks for `path`, takes the first bytes of the answer, then reads nothing more:
 * far more than the kernel's socket buffers hold stays with the daemon. `readToEnd` reads on
 * until the connection ends and says how many bytes came (head included).
 */
function stalledReader(d: TestDaemon, path: string): Promise<{ head: string; socket: net.Socket; readToEnd: () => Promise<number> }> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`));
    let received = 0;
    socket.once('error', reject);
    // Closed before a byte came: say so rather than wait for the test's timeout.
    socket.once('close', () => received === 0 && reject(new Error(`the daemon closed ${path} without answering`)));
    socket.once('data', (chunk: Buffer) => {
      received = chunk.length;
      socket.pause();
      const readToEnd = () =>
        new Promise<number>((done) => {
          socket.on('data', (c: Buffer) => (received += c.length));
          socket.once('close', () => done(received));
          socket.resume();
        });
      resolve({ head: chunk.toString('latin1', 0, 200), socket, readToEnd });
    });
  });
}

/** GET `path` until it is no longer 503 (the daemon sees a client gone a moment after it goes). */
async function fetchOnceFree(d: TestDaemon, path: string): Promise<Response> {
  for (let i = 0; ; i++) {
    const res = await fetch(d.url + path);
    if (res.status !== 503 || i === 100) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('/media holds a bounded number of image bytes for slow clients', () => {
  it('past images.maxBytesInFlight a request is 503 busy with Retry-After; bytes given back when a client goes serve again', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'images.maxBytes': 16 * MB, 'images.maxBytesInFlight': 20 * MB } });
    const ws = await seedWorkspace(d.app);
    const [a, b] = [largePng(12 * MB, 1), largePng(12 * MB, 2)];
    const urls = [await addImage(d.app, ws, a, 'a.png'), await addImage(d.app, ws, b, 'b.png')].map((i) => new URL(i.url).pathname);

    const first = await stalledReader(d, urls[0]);
    expect(first.head).toMatch(/^HTTP\/1\.1 200/);
    const busy = await fetch(d.url + urls[1]);
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '1']);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('busy');
    // HEAD and 304 hold no bytes: they still answer.
    expect((await fetch(d.url + urls[1], { method: 'HEAD' })).status).toBe(200);

    first.socket.destroy();
    const res = await fetchOnceFree(d, urls[1]);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(b)).toBe(true);
  });

  // 2 s, not less: the 503 below must come while the stalled client still holds its share, on a loaded machine too.
  it('a client that takes no bytes for images.sendTimeout is cut off, and its share serves the next', async () => {
    const d = await startDaemon({ jobs: false, overrides: { 'images.maxBytes': 16 * MB, 'images.maxBytesInFlight': 16 * MB, 'images.sendTimeout': '2s' } });
    const ws = await seedWorkspace(d.app);
    const image = largePng(12 * MB, 3);
    const url = new URL((await addImage(d.app, ws, image, 'a.png')).url).pathname;
    const stalled = await stalledReader(d, url);
    expect((await fetch(d.url + url)).status).toBe(503); // the stalled client holds the whole budget
    const res = await fetchOnceFree(d, url); // until the daemon cuts it off
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(image)).toBe(true);
    expect(await stalled.readToEnd()).toBeLessThan(image.length); // it never had the whole image
  });

  // The clock is the client's: a database that takes longer than images.sendTimeout to hand the
  // bytes over does not cut off a client that has been sent nothing yet.
  it.skipIf(!PG_URL)('a database slower than images.sendTimeout does not cut off the client (PostgreSQL behind a slow link)', async () => {
    const { dir, env } = await freshEnv();
    const direct = new URL(env.SVC_DATABASE_URL);
    const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
    const viaRelay = new URL(direct);
    viaRelay.host = `127.0.0.1:${relay.port}`;
    const d = await startDaemonOn({ ...env, SVC_DATABASE_URL: viaRelay.toString() }, dir, { 'images.sendTimeout': '300ms', 'limits.store': 'memory' }, false);
    const ws = await seedWorkspace(d.app);
    const image = largePng(1 * MB, 4);
    const url = new URL((await addImage(d.app, ws, image, 'a.png')).url).pathname;
    relay.delay(400);
    const res = await fetch(d.url + url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(image)).toBe(true);
    relay.restore();
  });
});
