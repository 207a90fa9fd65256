import { type ChildProcess, spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { closeIdleConnections, postOnce } from '../../src/webhooks/http-post.js';
import { until } from '../helpers/serve.js';

// postOnce against receivers written at the socket level, so each can break HTTP the way a real
// one does: keep the connection after a whole answer, never end the body, stop mid-body.
const config = { ...loadConfig({ env: { SVC_DATA_DIR: '/nonexistent', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, cwd: '/nonexistent' }).webhooks, timeout: 500, responseExcerptBytes: 64 };

interface RawReceiver {
  url: string;
  /** Resolves when the first connection was closed by svc (its FIN or reset). */
  closed: Promise<'svc'>;
  /** Connections accepted, and requests (first bytes of each request) seen. */
  connections: number;
  requests: number;
}

const servers: Array<net.Server | http.Server> = [];
afterEach(() => {
  closeIdleConnections(config);
  for (const s of servers.splice(0)) s.close();
});

/**
 * A receiver at the socket level that never closes a connection itself: `answer(socket, n, request)`
 * for each request (n counts the requests of that connection from 1; each request fits in one read here).
 */
async function rawReceiver(answer: (socket: net.Socket, n: number, request: string) => void): Promise<RawReceiver> {
  let onClosed!: (by: 'svc') => void;
  const closed = new Promise<'svc'>((ok) => (onClosed = ok));
  const r: RawReceiver = { url: '', closed, connections: 0, requests: 0 };
  const server = net.createServer((socket) => {
    const first = ++r.connections === 1;
    let n = 0;
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      // One request is its head and a body of Content-Length bytes.
      const head = buffered.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, head))?.[1] ?? 0);
      if (buffered.length < head + 4 + length) return;
      const request = buffered.slice(0, head + 4 + length);
      buffered = buffered.slice(request.length);
      r.requests++;
      answer(socket, ++n, request);
    });
    socket.on('end', () => first && onClosed('svc'));
    socket.on('error', () => first && onClosed('svc'));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  return r;
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 17\r\nConnection: keep-alive\r\n\r\n{"received":true}';

/** Fails the test instead of hanging when the promise does not settle within `ms`. */
const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms))]);

describe('postOnce against receivers that keep the connection', () => {
  it('a whole answer on a connection the receiver keeps: the next POST to it goes on the same connection; idle ones close on closeIdleConnections', async () => {
    const r = await rawReceiver((s) => s.write(OK));
    for (let i = 0; i < 3; i++) expect(await postOnce(r.url, Buffer.from(`{"n":${i}}`), { 'Content-Type': 'application/json' }, config)).toMatchObject({ status: 200, error: null, body: '{"received":true}' });
    expect({ connections: r.connections, requests: r.requests }).toEqual({ connections: 1, requests: 3 });
    closeIdleConnections(config);
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('idle connections in all are bounded at twice webhooks.concurrency: past it, a finished connection is closed, not kept', async () => {
    const small = { ...config, concurrency: 2 }; // at most 4 idle in all
    const receivers = await Promise.all(Array.from({ length: 6 }, () => rawReceiver((s) => s.write(OK))));
    let closedSoFar = 0;
    const closedBy = receivers.map((r, i) => r.closed.then(() => ((closedSoFar += 1), i)));
    for (const r of receivers) expect(await postOnce(r.url, Buffer.from('{}'), {}, small)).toMatchObject({ status: 200 });
    // The fifth and sixth found four idle already: closed at once; the first four stay open.
    expect((await within(Promise.all([closedBy[4], closedBy[5]]), 2_000, 'the fifth and sixth closed')).sort()).toEqual([4, 5]);
    expect(closedSoFar).toBe(2);
    closeIdleConnections(small);
    expect((await within(Promise.all(closedBy.slice(0, 4)), 2_000, 'the idle four closed')).sort()).toEqual([0, 1, 2, 3]);
  });

  it('a receiver that answers Connection: close: each POST on a new connection, which svc closes', async () => {
    const r = await rawReceiver((s) => s.write('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n'));
    for (let i = 0; i < 2; i++) expect(await postOnce(r.url, Buffer.from('{}'), {}, config)).toMatchObject({ status: 204, error: null });
    expect(r.connections).toBe(2);
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
  });

  it('a kept connection the receiver drops when the next request comes (its idle timeout, a restart): the request goes again on a new connection, once', async () => {
    // Answers the first request of each connection; resets the connection at its second.
    const r = await rawReceiver((s, n) => (n === 1 ? s.write(OK) : s.resetAndDestroy()));
    expect(await postOnce(r.url, Buffer.from('{"n":1}'), {}, config)).toMatchObject({ status: 200 });
    const again = await postOnce(r.url, Buffer.from('{"n":2}'), {}, config);
    expect(again).toMatchObject({ status: 200, error: null, body: '{"received":true}' });
    expect({ connections: r.connections, requests: r.requests }).toEqual({ connections: 2, requests: 3 });
  });

  it('an answer before the request went out whole (the receiver stops reading): the answer counts, and svc closes the connection instead of keeping it', async () => {
    let onClosed!: () => void;
    const closed = new Promise<void>((ok) => (onClosed = ok));
    let held: net.Socket | undefined;
    const server = net.createServer((socket) => {
      held = socket;
      socket.once('data', () => {
        socket.write('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n');
        socket.pause(); // reads no more: the rest of the body stays unsent, in svc's buffers
      });
      socket.on('close', onClosed);
    });
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    // Far more than the kernel's socket buffers hold, so the write cannot finish.
    const res = await postOnce(url, Buffer.alloc(32 * 1024 * 1024, 'x'), {}, config);
    expect(res).toMatchObject({ status: 413, error: null });
    held!.resume(); // reading again, the receiver sees what svc did with the connection: closed it
    await within(closed, 2_000, 'the connection closed');
  });

  it('a new connection reset before any answer is a failed attempt, not tried again', async () => {
    const r = await rawReceiver((s) => s.resetAndDestroy());
    expect(await postOnce(r.url, Buffer.from('{}'), {}, config)).toMatchObject({ status: null, error: 'connection reset by the receiver' });
    expect(r.requests).toBe(1);
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

  it('one signal for many requests in flight (as at the worker shutdown deadline): one listener on it, and its abort gives each up and closes its connection', async () => {
    const r = await rawReceiver(() => {}); // never answers
    const giveUp = new AbortController();
    const sent = Array.from({ length: 20 }, (_, i) => postOnce(r.url, Buffer.from(`{"n":${i}}`), {}, { ...config, timeout: 10_000 }, giveUp.signal));
    await until(() => r.requests >= 20, 5_000, 'the 20 requests at the receiver');
    expect(getEventListeners(giveUp.signal, 'abort')).toHaveLength(1);
    giveUp.abort();
    for (const res of await within(Promise.all(sent), 2_000, 'every request given up')) expect(res).toMatchObject({ status: null, error: 'given up: the daemon is shutting down' });
    expect(await within(r.closed, 2_000, 'the connection closed')).toBe('svc');
    expect(await postOnce(r.url, Buffer.from('{}'), {}, config, giveUp.signal)).toMatchObject({ status: null, error: 'given up: the daemon is shutting down' });
    expect(r.requests).toBe(20);
  });

  it('a target that is not a URL: an error outcome, not a throw', async () => {
    const res = await postOnce('not a url', Buffer.from('{}'), {}, config);
    expect(res.status).toBeNull();
    expect(res.error).toMatch(/invalid url/i);
  });
});

describe('postOnce against the keep-alive of real servers', () => {
  /** A node:http receiver (the server under Express, Fastify, Next.js): answers 200 once the body is read. */
  async function nodeReceiver(keepAliveTimeout?: number) {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}'));
    });
    if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
    const sockets: net.Socket[] = [];
    server.on('connection', (socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, sockets };
  }

  it('a node:http receiver with its defaults (Keep-Alive: timeout=5): POSTs one after another share one connection', async () => {
    const r = await nodeReceiver();
    for (let i = 0; i < 4; i++) expect(await postOnce(r.url, Buffer.from(`{"n":${i}}`), {}, config)).toMatchObject({ status: 200, error: null });
    expect(r.sockets).toHaveLength(1);
  });

  it('a receiver announcing a short keep-alive (Keep-Alive: timeout=2): svc closes the idle connection before the receiver would, so no POST meets a connection closing under it', async () => {
    const r = await nodeReceiver(2_000);
    expect(await postOnce(r.url, Buffer.from('{}'), {}, config)).toMatchObject({ status: 200 });
    const [socket] = r.sockets;
    // Who ends the idle connection first: svc (its FIN reaches the receiver: 'end') or the receiver (its idle timer: 'timeout').
    const first = await within(new Promise<string>((ok) => (socket.once('end', () => ok('svc')), socket.once('timeout', () => ok('receiver')))), 5_000, 'the idle connection ended');
    expect(first).toBe('svc');
    expect(await postOnce(r.url, Buffer.from('{}'), {}, config)).toMatchObject({ status: 200, error: null });
    expect(r.sockets).toHaveLength(2);
  });

  it('a receiver that closes idle connections itself and announces nothing (gunicorn keeps them 2 s): the next POST goes on a new connection, without an error or a second try', async () => {
    // Answers, then ends the connection once it was idle 300 ms (each request starts the wait again), as such a server does.
    const idle = new Map<net.Socket, NodeJS.Timeout>();
    const r = await rawReceiver((s) => {
      s.write(OK);
      clearTimeout(idle.get(s));
      idle.set(s, setTimeout(() => s.end(), 300));
    });
    // Back to back, the connection is kept: both POSTs on one (without keep-alive this is two).
    expect(await postOnce(r.url, Buffer.from('{"n":1}'), {}, config)).toMatchObject({ status: 200 });
    expect(await postOnce(r.url, Buffer.from('{"n":2}'), {}, config)).toMatchObject({ status: 200 });
    expect({ connections: r.connections, requests: r.requests }).toEqual({ connections: 1, requests: 2 });
    await within(r.closed, 2_000, 'the receiver closed the idle connection');
    expect(await postOnce(r.url, Buffer.from('{"n":3}'), {}, config)).toMatchObject({ status: 200, error: null });
    // Three requests in all: the third never went on the closed connection (it would have been sent again).
    expect({ connections: r.connections, requests: r.requests }).toEqual({ connections: 2, requests: 3 });
  });
});

describe("postOnce against a server not written in Node: CPython's http.server", () => {
  // CPython's http.server speaking HTTP/1.1 keeps connections, announces no keep-alive timeout, and
  // drops a connection idle longer than its handler's `timeout` (like gunicorn's keepalive): a
  // real implementation of that behaviour, not one written here. Each answer names the client's
  // port, and the server prints a line per request and per connection it closed.
  const SERVER = [
    'import http.server, json, sys',
    'class H(http.server.BaseHTTPRequestHandler):',
    '    protocol_version = "HTTP/1.1"',
    '    timeout = 0.3',
    '    def do_POST(self):',
    '        self.rfile.read(int(self.headers.get("Content-Length", 0)))',
    '        body = json.dumps({"port": self.client_address[1]}).encode()',
    '        self.send_response(200)',
    '        self.send_header("Content-Type", "application/json")',
    '        self.send_header("Content-Length", str(len(body)))',
    '        self.end_headers()',
    '        self.wfile.write(body)',
    '        print("request", self.client_address[1], flush=True)',
    '    def finish(self):',
    '        super().finish()',
    '        print("closed", self.client_address[1], flush=True)',
    '    def log_message(self, *args):',
    '        pass',
    's = http.server.HTTPServer(("127.0.0.1", 0), H)',
    'print("port", s.server_address[1], flush=True)',
    's.serve_forever()',
  ].join('\n');
  let python: ChildProcess | undefined;
  afterEach(() => python?.kill());

  it('POSTs back to back share its connection; once it dropped the idle one, the next POST goes on a new connection without an error or a second try', async () => {
    python = spawn('python3', ['-c', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    // python3 is on every machine that builds sqlite3 (node-gyp needs it); say so if it is not.
    const gone = new Promise<never>((_, fail) => {
      python!.once('error', (err) => fail(new Error(`python3 could not run (${err.message}): this test needs it, as sqlite3's build does`)));
      python!.once('exit', (code) => fail(new Error(`the python3 receiver exited (${code})`)));
    });
    gone.catch(() => undefined); // raced below; after the test the kill's exit is nobody's concern
    const lines: string[] = [];
    const waiters: Array<() => void> = [];
    let buffered = '';
    python.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
      for (const w of waiters.splice(0)) w();
    });
    const line = (prefix: string) =>
      within(
        new Promise<string>((ok) => {
          const look = () => {
            const found = lines.find((l) => l.startsWith(prefix));
            if (found) ok(found);
            else waiters.push(look);
          };
          look();
        }),
        5_000,
        `python's "${prefix}" line`,
      );
    const port = Number((await Promise.race([line('port '), gone])).split(' ')[1]);
    const url = `http://127.0.0.1:${port}/hook`;
    const post = async (n: number) => {
      const res = await postOnce(url, Buffer.from(`{"n":${n}}`), { 'Content-Type': 'application/json' }, config);
      expect(res).toMatchObject({ status: 200, error: null });
      return (JSON.parse(res.body) as { port: number }).port;
    };
    const first = await post(1);
    expect(await post(2), 'the second POST on the kept connection').toBe(first);
    await line(`closed ${first}`); // the server dropped it once idle, announcing nothing
    const third = await post(3);
    expect(third, 'a new connection').not.toBe(first);
    await line(`request ${third}`);
    expect(lines.filter((l) => l.startsWith('request ')), 'three requests in all: none sent twice').toHaveLength(3);
  });
});
