import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { withStateDir } from '../helpers/env.js';
import { sandbox } from './sandbox.js';

// `svc articles list --json | head -n 5`: the reader of the pipe leaves before svc has written
// everything. svc stops writing and ends as the command ended, with no "write EPIPE" stack.
describe('output to a pipe whose reader has gone', { timeout: 60_000 }, () => {
  it('ends quietly with the command\'s exit code', async () => {
    const box = await sandbox();
    for (const [args, code] of [[['--help'], 0], [['articles', 'list', '--workspace', 'nowhere', '--json'], 1]] as const) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: box.dir, env: withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...box.env }), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before svc writes a byte
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ args, exit, stderr }).toEqual({ args, exit: code, stderr: '' });
    }
    // `svc ... 2>&1 | head`: both gone; the error message has no reader either.
    for (const [args, code] of [[['articles', 'list', '--workspace', 'nowhere'], 1]] as const) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: box.dir, env: withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...box.env }), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      child.stderr.destroy();
      const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ args, exit }).toEqual({ args, exit: code });
    }
  });
});

// `svc serve 2>&1 | head -n 3`, `svc serve | head`, or a log shipper reading a pipe that ended:
// the daemon's log (and its one stdout line) lose their reader. It keeps serving, as a service
// manager's daemons do (systemd ignores SIGPIPE for its services for this reason); the lines written
// meanwhile are lost, and a signal stops it as usual, exit 0.
describe('the daemon, its stdout and log pipe without a reader', { timeout: 60_000 }, () => {
  // Every request writes a log line (the request log), so each one here writes into the closed pipe.
  const answers = async (port: number) => {
    const statuses: number[] = [];
    for (const route of ['/healthz', '/livez', '/no-such-page', '/healthz']) statuses.push((await fetch(`http://127.0.0.1:${port}${route}`)).status);
    return statuses;
  };

  it('`svc serve 2>&1 | head`: both go after the first lines; it still answers, and SIGTERM stops it with exit 0', async () => {
    const box = await sandbox({ migrated: true });
    const { child, exited } = serveWith(box, 'pipe', 'pipe');
    const port = await listeningPort(child, exited);
    child.stdout!.destroy();
    child.stderr!.destroy();
    expect(await answers(port)).toEqual([200, 200, 404, 200]);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it('`svc serve | head -n 0`: stdout is gone before its line; it serves, and SIGTERM stops it with exit 0', async () => {
    const box = await sandbox({ migrated: true });
    const { child, exited } = serveWith(box, 'pipe', 'pipe');
    child.stdout!.destroy();
    // The port from the log, which still has its reader until the daemon serves.
    const port = await new Promise<number>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
        const serving = err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'svc is serving');
        if (serving) resolve(Number(String(serving.address).split(':').pop()));
      });
      void exited.then((e) => reject(new Error(`svc serve exited (${e.code ?? e.signal}) before serving:\n${err}`)));
    });
    expect(await answers(port)).toEqual([200, 200, 404, 200]);
    child.stderr!.destroy();
    expect(await answers(port)).toEqual([200, 200, 404, 200]);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

// `svc ... > file` on a full disk (/dev/full answers every write with ENOSPC). A command whose
// output was not all written fails, in one line on stderr instead of a stack; the daemon keeps
// serving with its log lost, and exits 1 when stopped, the one trace left of what it could not say.
describe.skipIf(!existsSync('/dev/full'))('output on a full disk', { timeout: 60_000 }, () => {
  const full = () => {
    const fd = openSync('/dev/full', 'w');
    onTestFinished(() => closeSync(fd));
    return fd;
  };

  it('a command says it could not write its output and exits 1', async () => {
    const box = await sandbox({ migrated: true });
    // --version writes its one line last, right before the command returns.
    for (const args of [['workspaces', 'list', '--json'], ['--version']]) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: box.dir, env: withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...box.env }), stdio: ['ignore', full(), 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ args, exit, stderr }).toEqual({ args, exit: 1, stderr: 'error: svc could not write all of its output (ENOSPC: no space left on the device)\n' });
    }
  });

  it('the daemon with its log on a full disk serves, and exits 1 when stopped', async () => {
    const box = await sandbox({ migrated: true });
    const { child, exited } = serveWith(box, 'pipe', full());
    const port = await listeningPort(child, exited);
    // Each request writes a log line, each into the full disk.
    for (const route of ['/healthz', '/livez', '/no-such-page', '/healthz']) expect((await fetch(`http://127.0.0.1:${port}${route}`)).status).toBe(route === '/no-such-page' ? 404 : 200);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 1, signal: null });
  });

  it('the daemon with its stdout on a full disk serves', async () => {
    const box = await sandbox({ migrated: true });
    const { child, exited } = serveWith(box, full(), 'pipe');
    let err = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr!.on('data', (d) => {
        err += d;
        const serving = err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'svc is serving');
        if (serving) resolve(Number(String(serving.address).split(':').pop()));
      });
      void exited.then((e) => reject(new Error(`svc serve exited (${e.code ?? e.signal}) before serving:\n${err}`)));
    });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(err).toContain('error: svc could not write all of its output (ENOSPC: no space left on the device)\n');
  });
});

// `svc serve 2>&1 | a-log-shipper` whose reader hangs without closing: a pipe is written
// asynchronously, so every line would wait in the daemon's memory. Past a bound lines are dropped,
// and once the reader reads again the first line says how many.
describe('the daemon, its log pipe with a reader that stalls', { timeout: 90_000 }, () => {
  it('keeps serving, drops lines past the bound and says how many once read again', async () => {
    const box = await sandbox({ migrated: true });
    const { child, exited } = serveWith(box, 'pipe', 'pipe');
    const port = await listeningPort(child, exited);
    // Nobody reads stderr yet (a paused stream stops reading the pipe once its buffer is full).
    // Each request writes a request-log line of a few hundred bytes: 8,000 are several MB.
    const statuses = new Map<number, number>();
    for (let i = 0; i < 160; i++) {
      for (const s of await Promise.all(Array.from({ length: 50 }, () => fetch(`http://127.0.0.1:${port}/livez`).then((r) => r.status)))) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    expect([...statuses]).toEqual([[200, 8000]]);
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const said = /"msg":"(\d+) log lines dropped: the log's reader did not keep up"/;
    for (let i = 0; i < 400 && !said.test(err); i++) {
      await fetch(`http://127.0.0.1:${port}/livez`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(Number(said.exec(err)?.[1])).toBeGreaterThan(1000);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

type Ended = Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

/** `svc serve` on an ephemeral port, its stdout and stderr as given, killed when the test ends. */
function serveWith(box: { env: Record<string, string>; dir: string }, stdout: 'pipe' | number, stderr: 'pipe' | number) {
  const env = withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...box.env, SVC_PORT: '0', SVC_LOG_LEVEL: 'info' });
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: box.dir, env, stdio: ['ignore', stdout, stderr] });
  onTestFinished(() => void child.kill('SIGKILL'));
  const exited: Ended = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

/** The port of the daemon's `listening on` line on its stdout. */
function listeningPort(child: ReturnType<typeof serveWith>['child'], exited: Ended): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((e) => reject(new Error(`svc serve exited (${e.code ?? e.signal}) before listening`)));
  });
}
