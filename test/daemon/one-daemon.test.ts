import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

describe.skipIf(Boolean(PG_URL))('one daemon per SQLite file', () => {
  it('a second svc serve is refused with a pointer to PostgreSQL; CLI commands run beside the daemon; after kill -9 the next start works', async () => {
    const { dir, env } = await freshEnv();
    const first = await serve(env, dir);

    const second = await spawnCli(['serve'], { env: { ...env, SVC_PORT: '0' }, cwd: dir });
    expect({ code: second.code, stdout: second.stdout, stderr: second.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: Another svc daemon is already serving the SQLite database ${path.join(dir, 'svc.sqlite')}\n` +
        'hint: One daemon per SQLite file: stop the other one first (CLI commands may run beside it). To run several daemons, use PostgreSQL (database.url in the config file every daemon reads); see "Several daemons" in the README.\n',
    });
    // Refused before it bound a port or touched the database: the same port gets the same answer.
    const samePort = await spawnCli(['serve'], { env: { ...env, SVC_PORT: String(first.port) }, cwd: dir });
    expect(samePort.stderr).toMatch(/^error: Another svc daemon is already serving/);

    const cli = await spawnCli(['workspaces', 'add', '--name', 'beside.example', '--website', 'https://beside.example', '--json'], { env, cwd: dir });
    expect(cli.code, cli.stderr).toBe(0);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    // A crash leaves nothing behind that blocks the next daemon.
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const next = await serve(env, dir);
    expect((await fetch(`${next.url}/healthz`)).status).toBe(200);
    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    // And after a clean stop, too.
    const after = await serve(env, dir);
    after.child.kill('SIGTERM');
    expect(await after.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
// Several daemons on one PostgreSQL database: test/db/concurrent-migrate.test.ts starts two at once.
