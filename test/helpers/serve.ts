import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import net from 'node:net';
import { onTestFinished } from 'vitest';
import { BIN } from './cli.js';
import { withStateDir } from './env.js';

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the port once the daemon printed that it listens (it is ready then). */
  ready: Promise<number>;
  stdout(): string;
  stderr(): string;
  /** The JSON log lines written so far. */
  logs(): Array<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Served extends ServeProcess {
  port: number;
  url: string;
}

/**
 * `svc serve` as a real process (the compiled binary), not waiting for it: for tests that watch
 * the start itself. SVC_PORT defaults to 0 and the log level to info. `umask` runs it under that
 * umask (through sh); `prefix` runs it through that command (`unshare ...`). Killed when the test ends.
 */
export function spawnServe(env: Record<string, string>, cwd: string, options: { umask?: string; prefix?: string[] } = {}): ServeProcess {
  const fullEnv = withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_PORT: '0', ...env, SVC_LOG_LEVEL: 'info' });
  const command = options.umask ? ['/bin/sh', '-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, BIN, 'serve'] : [process.execPath, BIN, 'serve'];
  const [file, ...args] = [...(options.prefix ?? []), ...command];
  const child = spawn(file, args, { cwd, env: fullEnv });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    exited.then(({ code, signal }) => reject(new Error(`svc serve exited (${code ?? signal}) before listening:\n${err}`)));
    child.once('error', (e) => reject(new Error(`svc serve could not run: ${e.message}`)));
  });
  ready.catch(() => {}); // tests that expect an early exit never await it
  return { child, ready, stdout: () => out, stderr: () => err, logs: () => logLines(err), exited };
}

/** `svc serve` as a real process on a free port; resolves once it is ready. */
export async function serve(env: Record<string, string>, cwd: string, options: { umask?: string; prefix?: string[] } = {}): Promise<Served> {
  const p = spawnServe(env, cwd, options);
  const port = await p.ready;
  return { ...p, port, url: `http://127.0.0.1:${port}` };
}

export const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

/** A port that was free a moment ago (for tests that must know it before the daemon binds). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves true once a TCP connect to the port is refused. */
export async function refusesConnections(port: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(true));
    });
    if (refused) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Poll `check` (every 10 ms) until it is true; fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
