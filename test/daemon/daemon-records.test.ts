import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PG_ADMIN, pgAvailable } from '../backup/pg.js';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

// Daemons on PostgreSQL may share a data directory. With one record file between them the last
// daemon to start overwrote the others', and its stop removed the only record while the others
// still served, so the CLI warned of none of them. Each has its own, in the state directory.

const records = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('daemon')).sort();

describe.runIf(await pgAvailable())('two daemons sharing one data directory on PostgreSQL', () => {
  it('each keeps its own record: the CLI sees every running daemon, before and after one of them stops', async () => {
    const dir = tempDir();
    const state = tempDir();
    const sqlite = { SVC_DATA_DIR: dir, SVC_STATE_DIR: state, SVC_LOG_LEVEL: 'silent' };
    const onPg = { ...sqlite, SVC_DATABASE_URL: await createPgDatabase(PG_ADMIN) };
    expect((await runCli(['workspaces', 'add', '--name', 'a.example', '--website', 'https://a.example'], { env: onPg, cwd: dir })).code).toBe(0);
    // A SQLite file of before exists: commands on it warn (without it they are refused, test/cli/served-daemon.test.ts).
    expect((await runCli(['migrate'], { env: sqlite, cwd: dir })).code).toBe(0);
    const strict = await serve({ ...onPg, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' }, dir);
    const allowing = await serve({ ...onPg, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, dir);

    const warned = (stderr: string) => [...stderr.matchAll(/the svc daemon of this data directory \(pid (\d+)\) serves postgres/g)].map((m) => Number(m[1])).sort();
    const both = await runCli(['workspaces', 'list'], { env: sqlite, cwd: dir });
    expect(both.code, both.stderr).toBe(0);
    expect(warned(both.stderr)).toEqual([strict.child.pid!, allowing.child.pid!].sort());
    expect(both.stderr.match(/^hint: /gm)).toHaveLength(1);
    expect(records(state)).toEqual([`daemon-${strict.child.pid}.json`, `daemon-${allowing.child.pid}.json`].sort());

    // `webhook set` weighs every running daemon's settings: only the one that would refuse is named.
    const set = await runCli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'], { env: { ...onPg, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, cwd: dir });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr.match(/warning: the running daemon \(pid (\d+)\) does not allow/g)).toEqual([`warning: the running daemon (pid ${strict.child.pid}) does not allow`]);

    allowing.child.kill('SIGTERM');
    expect((await allowing.exited).code).toBe(0);
    expect(records(state)).toEqual([`daemon-${strict.child.pid}.json`]);
    expect(warned((await runCli(['workspaces', 'list'], { env: sqlite, cwd: dir })).stderr)).toEqual([strict.child.pid]);

    // A daemon killed outright leaves its record: ignored, and cleared by the next daemon to start.
    strict.child.kill('SIGKILL');
    await strict.exited;
    expect(existsSync(path.join(state, `daemon-${strict.child.pid}.json`))).toBe(true);
    expect((await runCli(['workspaces', 'list'], { env: sqlite, cwd: dir })).stderr).toBe('');
    const next = await serve(onPg, dir);
    expect(records(state)).toEqual([`daemon-${next.child.pid}.json`]);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
    expect(records(state)).toEqual([]);
  }, 90_000);
});
