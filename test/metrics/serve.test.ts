import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { freshEnv } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { serve } from '../helpers/serve.js';

describe('svc serve with metrics.listen (the real binary)', () => {
  it('logs the metrics address, answers scrapes there and not on the public port, and still stops cleanly', async () => {
    const { dir, env } = await freshEnv({ SVC_METRICS_LISTEN: '127.0.0.1:0' });
    const svc = await serve(env, dir);
    const line = await poll(async () => svc.logs().find((l) => l.msg === 'metrics listening (GET /metrics)'), Boolean);
    const port = Number(/:(\d+)$/.exec(line!.address)![1]);
    expect(port).not.toBe(svc.port);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toContain('svc_http_requests_total{method="GET",route="/healthz",status="200"} 1');
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(404);
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('a metrics port already in use stops the start with one line and a hint, exit 1', async () => {
    const { dir, env } = await freshEnv();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await spawnCli(['serve'], { env: { ...env, SVC_PORT: '0', SVC_METRICS_LISTEN: `127.0.0.1:${port}` }, cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: Cannot listen on 127.0.0.1:${port}: the port is already in use (is another svc running?)\nhint: Choose another address with SVC_METRICS_LISTEN.\n`);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('an IPv6 address is named in brackets, for the public port and the metrics port alike', async () => {
    const { dir, env } = await freshEnv();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '::1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const metrics = await spawnCli(['serve'], { env: { ...env, SVC_PORT: '0', SVC_METRICS_LISTEN: `[::1]:${port}` }, cwd: dir });
      expect(metrics.stderr).toMatch(new RegExp(`^error: Cannot listen on \\[::1\\]:${port}: the port is already in use`));
      const server = await spawnCli(['serve'], { env: { ...env, SVC_HOST: '::1', SVC_PORT: String(port) }, cwd: dir });
      expect(server.stderr).toMatch(new RegExp(`^error: Cannot listen on \\[::1\\]:${port}: the port is already in use`));
    } finally {
      blocker.close();
    }
  }, 60_000);
});
