import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { spawnCli } from '../helpers/cli.js';
import { freshEnv } from '../helpers/env.js';
import { logLines, refusesConnections, serve } from '../helpers/serve.js';
import { beforeClose, beforeExit } from '../helpers/settle.js';

describe('svc serve (the real binary)', () => {
  it('migrates a fresh database, serves /healthz, logs each request with its id, and stops on SIGTERM after finishing an in-flight request', async () => {
    const { dir, env } = await freshEnv();
    const svc = await serve(env, dir);
    try {
      expect(svc.stdout()).toMatch(new RegExp(`^svc ${VERSION.replace(/\./g, '\\.')} listening on http://127\\.0\\.0\\.1:${svc.port} \\(base URL http://127\\.0\\.0\\.1:${svc.port}\\)\\n`));
      const res = await fetch(`${svc.url}/healthz`, { headers: { 'X-Request-Id': 'probe-1' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', version: VERSION, database: { client: env.SVC_DATABASE_URL ? 'pg' : 'sqlite3', state: 'ok' } });
      expect(res.headers.get('x-request-id')).toBe('probe-1');
      const other = await fetch(`${svc.url}/nope`);
      const otherId = other.headers.get('x-request-id');
      expect(otherId).toMatch(/^[0-9a-f-]{36}$/);

      // A request whose body is still arriving when SIGTERM comes must still be answered.
      // `Expect: 100-continue` makes the daemon say when it has taken the request on.
      const socket = net.connect(svc.port, '127.0.0.1');
      const closed = new Promise((r) => socket.once('close', r));
      let answer = '';
      const continued = new Promise<void>((resolve) =>
        socket.on('data', (d) => {
          answer += d;
          if (answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) resolve();
        }),
      );
      const body = 'grant_type=authorization_code&code=x';
      socket.write(
        `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
      );
      await beforeExit(beforeClose(continued, socket, "the daemon's 100 Continue"), svc.child, "the daemon's 100 Continue", svc.stderr);

      svc.child.kill('SIGTERM');
      expect(await refusesConnections(svc.port)).toBe(true);
      socket.write(body.slice(10));
      await closed;
      expect(answer.replace('HTTP/1.1 100 Continue\r\n\r\n', '')).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);

      expect(await svc.exited).toEqual({ code: 0, signal: null });
      const lines = logLines(svc.stderr());
      expect(lines.find((l) => l.msg === 'applied migrations')?.migrations.length).toBeGreaterThan(0);
      const requests = lines.filter((l) => l.msg === 'request');
      expect(requests.map((l) => [l.requestId, l.method, l.url, l.status])).toEqual(
        expect.arrayContaining([
          ['probe-1', 'GET', '/healthz', 200],
          [otherId, 'GET', '/nope', 404],
          [expect.any(String), 'POST', '/oauth/token', expect.any(Number)],
        ]),
      );
      expect(requests).toHaveLength(3);
      expect(lines.some((l) => l.msg?.startsWith('shutting down') && l.signal === 'SIGTERM')).toBe(true);
      expect(lines.at(-1)?.msg).toBe('stopped');

      // serve applied every migration: nothing is pending.
      const status = await spawnCli(['migrate', '--status', '--json'], { env, cwd: dir });
      expect(status.json().pending).toEqual([]);
    } finally {
      svc.child.kill('SIGKILL');
    }
  }, 60_000);

  it('stops on SIGINT (Ctrl-C) with exit 0', async () => {
    const { dir, env } = await freshEnv();
    const svc = await serve(env, dir);
    try {
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
      svc.child.kill('SIGINT');
      expect(await svc.exited).toEqual({ code: 0, signal: null });
      expect(logLines(svc.stderr()).some((l) => l.signal === 'SIGINT')).toBe(true);
    } finally {
      svc.child.kill('SIGKILL');
    }
  });

  it('a port in use: one clear line and exit 1', async () => {
    const { dir, env } = await freshEnv();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await spawnCli(['serve'], { env: { ...env, SVC_PORT: String(port) }, cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: Cannot listen on 127.0.0.1:${port}: the port is already in use (is another svc running?)\nhint: Choose another address with SVC_HOST / SVC_PORT (or --host / --port).\n`);
    } finally {
      blocker.close();
    }
  });

  it('--port must be a number (exit 2), and svc alone means serve', async () => {
    const { dir, env } = await freshEnv();
    const r = await spawnCli(['--port', 'eighty'], { env, cwd: dir });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'error: --port takes a number from 0 to 65535, not "eighty"\n' });
  });

  it('bad configuration at start: the message and exit 1, no stack trace', async () => {
    const { dir, env } = await freshEnv();
    const r = await spawnCli(['serve'], { env: { ...env, SVC_PORT: 'eighty', SVC_WEBHOOKS_TIMEOUT: 'forever' }, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: Invalid configuration:\n  - SVC_PORT: "eighty" is not a valid number (for server.port)\n  - SVC_WEBHOOKS_TIMEOUT: "forever" is not a duration (use e.g. 500ms, 30s, 2m, 1h, 5d)\nhint: See config.example.yaml for every key, its default and its SVC_* variable.\n',
    );
    expect(r.stdout).toBe('');
  });
});
