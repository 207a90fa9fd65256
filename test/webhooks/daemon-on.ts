import { type ChildProcess, spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { afterFile } from '../helpers/cleanup.js';
import { withStateDir } from '../helpers/env.js';

export { startDaemonOn } from '../helpers/daemon.js';

/** The compiled daemon as a child process (so it can be killed with SIGKILL); resolves once it listens. */
export async function spawnDaemon(env: Record<string, string>, dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: dir, env: withStateDir({ PATH: process.env.PATH ?? '', CI: 'true', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  // Inside a test, afterAll registers nothing (the daemons outlived the suite): end with the test.
  try {
    onTestFinished(kill);
  } catch {
    afterFile(kill);
  }
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!out.includes('listening on')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`daemon did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return child;
}
