import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { serve, spawnServe } from '../helpers/serve.js';
import { PG_ADMIN, pgAvailable } from './pg.js';

const sqliteEnv = (dir: string) => ({ SVC_DATA_DIR: dir, SVC_STATE_DIR: path.join(dir, 'state'), SVC_LOG_LEVEL: 'silent' });
const withPassword = (url: string) => {
  const u = new URL(url);
  u.password = 'hunter2-secret';
  return u.toString();
};

describe.runIf(await pgAvailable())('after svc db copy the SQLite file is marked as moved (issue 24: split brain)', () => {
  it('refuses CLI commands and serve on the old file, naming the new home without its password, unless told to ignore it', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'moved.example', '--website', 'https://moved.example'], { env, cwd: dir })).code).toBe(0);
    const to = withPassword(await createPgDatabase(PG_ADMIN));
    const shown = to.replace(':hunter2-secret@', '@');

    const copy = await runCli(['db', 'copy', '--to', to], { env, cwd: dir });
    expect(copy.code, copy.stderr).toBe(0);
    // It ends by telling how to make the move permanent for the daemon and the CLI alike.
    expect(copy.stdout).toContain(`${path.join(dir, 'svc.sqlite')} is now marked as moved: svc serve and svc commands refuse it, naming ${shown}`);
    expect(copy.stdout).toContain(`set the URL in the config file both read (${dir}/config.yaml, or the file SVC_CONFIG names):\n  database:\n    url: ${to.replace(':hunter2-secret@', ':PASSWORD@')}\nthen restart the daemon.`);
    const marker = readFileSync(path.join(dir, 'svc.sqlite-moved.json'), 'utf8');
    expect(marker).toContain(shown);
    expect(marker).not.toContain('hunter2');

    // A command without the new URL would write where no daemon serves: refused, naming the new home.
    const publish = await runCli(['workspaces', 'add', '--name', 'lost.example', '--website', 'https://lost.example'], { env, cwd: dir });
    expect(publish.code).toBe(1);
    expect(publish.stderr).toMatch(new RegExp(`^error: The SQLite database ${dir}/svc\\.sqlite was moved to ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(svc db copy, \\d{4}-.*\\): svc no longer uses it\nhint: Point svc at the new home: database\\.url in the config file`));
    expect(publish.stderr).not.toContain('hunter2');
    const asJson = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(asJson.json().error).toMatchObject({ code: 'database_moved', movedTo: shown });

    // svc serve refuses it before it listens.
    const daemon = spawnServe(env, dir);
    const exited = await daemon.exited;
    expect(exited.code).toBe(1);
    expect(daemon.stderr()).toContain(`was moved to ${shown}`);

    // Told otherwise (one command), the file is used; config.yaml with database.url moves both for good.
    const ignored = await runCli(['workspaces', 'list', '--json'], { env: { ...env, SVC_DATABASE_IGNORE_MOVED: 'true' }, cwd: dir });
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.json().map((w: { name: string }) => w.name)).toEqual(['moved.example']);
    writeFileSync(path.join(dir, 'config.yaml'), `database:\n  url: ${to}\n`);
    const viaConfig = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(viaConfig.code, viaConfig.stderr).toBe(0);
    expect(viaConfig.json().map((w: { name: string }) => w.name)).toEqual(['moved.example']);
  }, 60_000);

  it('a command that is not looking at the database the running daemon serves warns', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    const to = await createPgDatabase(PG_ADMIN);
    // The SQLite file of before the move exists (without it the command is refused: served-daemon.test.ts).
    expect((await runCli(['migrate'], { env, cwd: dir })).code).toBe(0);
    const daemon = await serve({ ...env, SVC_DATABASE_URL: to }, dir);
    expect(existsSync(path.join(dir, 'state', `daemon-${daemon.child.pid}.json`))).toBe(true);

    const onSqlite = await runCli(['workspaces', 'list'], { env, cwd: dir });
    expect(onSqlite.code, onSqlite.stderr).toBe(0);
    expect(onSqlite.stderr).toContain(`warning: the svc daemon of this data directory (pid ${daemon.child.pid}) serves ${to}, but this command uses ${dir}/svc.sqlite`);
    const onPg = await runCli(['workspaces', 'list'], { env: { ...env, SVC_DATABASE_URL: to }, cwd: dir });
    expect(onPg.stderr).toBe('');

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    expect(existsSync(path.join(dir, 'state', `daemon-${daemon.child.pid}.json`))).toBe(false);
    expect((await runCli(['workspaces', 'list'], { env, cwd: dir })).stderr).toBe('');
  }, 60_000);
});
