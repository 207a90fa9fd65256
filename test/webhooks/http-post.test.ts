import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { postOnce } from '../../src/webhooks/http-post.js';

// postOnce against receivers written at the socket level, so each can break HTTP the way a real
// one does: keep the connection after a whole answer, never end the body, stop mid-body.
const config = { ...loadConfig({ env: { SVC_DATA_DIR: '/nonexistent', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, cwd: '/nonexistent' }).webhooks, timeout: 500, responseExcerptBytes: 64 };

interface RawReceiver {
  url: string;
  /** Resolves when the connection of the first request was closed, with who closed it first. */
  closed: Promise<'svc' | 'receiver'>;
}

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A receiver that answers each request with `answer(socket)` and never closes a connection itself. */
async function rawReceiver(answer: (socket: net.Socket) => void): Promise<RawReceiver> {
  let onClosed!: (by: 'svc' | 'receiver') => void;
  const closed = new Promise<'svc' | 'receiver'>((ok) => (onClosed = ok));
  const server = net.createServer((socket) => {
    let answered = false;
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      answer(socket);
    });
    socket.on('end', () => onClosed('svc')); // svc sent its FIN (or reset) first
    socket.on('error', () => onClosed('svc'));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, closed };
}

/** Fails the test instead of hanging when the promise does not settle within `ms`. */
const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe('postOnce against receivers that keep the connection', () => {
  it('a whole answer on a connection the receiver keeps open: the answer counts and svc closes the connection', async () => {
    const r = await rawReceiver((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 17\r\nConnection: keep-alive\r\n\r\n{"received":true}'));
    const res = await postOnce(r.url, Buffer.from('{}'), { 'Content-Type': 'application/json' }, config);
    expect(res).toMatchObject({ status: 200, error: null, body: '{"received":true}' });
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('an answer whose body never ends: read up to responseExcerptBytes, then the connection is closed', async () => {
    const r = await rawReceiver((s) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      const more = setInterval(() => s.writable && s.write(`20\r\n${'x'.repeat(32)}\r\n`), 5);
      s.on('close', () => clearInterval(more));
    });
    const res = await postOnce(r.url, Buffer.from('{}'), {}, config);
    expect(res.status).toBe(200);
    expect(res.error).toBeNull();
    expect(res.body).toBe('x'.repeat(64));
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('a 2xx whose body stops half-way: the status counts at webhooks.timeout and the connection is closed', async () => {
    const r = await rawReceiver((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"rece'));
    const res = await postOnce(r.url, Buffer.from('{}'), {}, config);
    expect(res).toMatchObject({ status: 200, error: null, body: '{"rece' });
    expect(res.durationMs).toBeGreaterThanOrEqual(config.timeout - 5);
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('no answer at all: a timeout error, and the connection is closed', async () => {
    const r = await rawReceiver(() => {});
    const res = await postOnce(r.url, Buffer.from('{}'), {}, config);
    expect(res).toMatchObject({ status: null, error: `timed out after ${config.timeout} ms` });
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('a target that is not a URL: an error outcome, not a throw', async () => {
    const res = await postOnce('not a url', Buffer.from('{}'), {}, config);
    expect(res.status).toBeNull();
    expect(res.error).toMatch(/invalid url/i);
  });
});
