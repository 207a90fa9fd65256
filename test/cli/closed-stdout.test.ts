import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
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
