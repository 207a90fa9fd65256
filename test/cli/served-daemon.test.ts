import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveDaemons } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { PG_ADMIN, pgAvailable } from '../backup/pg.js';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';
import { expectCleanError, initialised } from './sandbox.js';

const withPg = await pgAvailable();
const recordsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^daemon-\d+\.json$/.test(f)) : []);

describe('the CLI knows the daemon it administers', () => {
  it('the daemon records what it serves in the state directory; blog-key and api-keys print the address it really serves and warn that their own differs; the record goes at stop', async () => {
    const box = await initialised();
    // As the README's unit once did: the public address only in the daemon's environment.
    const daemon = await serve({ ...box.env, SVC_BASE_URL: 'https://svc.example.org' }, box.dir);
    expect(recordsIn(box.dir)).toEqual([]);
    const [recordFile] = recordsIn(box.env.SVC_STATE_DIR);
    const record = JSON.parse(readFileSync(path.join(box.env.SVC_STATE_DIR, recordFile), 'utf8'));
    expect(record).toMatchObject({ pid: daemon.child.pid, dataDir: box.dir, served: { host: '127.0.0.1', port: daemon.port, baseUrl: 'https://svc.example.org' }, configFile: null });

    const generated = await box.cli(['blog-key', 'generate']);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toContain('to https://svc.example.org/api/v1/content');
    expect(generated.stderr).toContain(
      "warning: the running daemon serves https://svc.example.org, but this command's server.baseUrl is http://127.0.0.1:8080 (the default server.baseUrl); printing the daemon's.",
    );
    expect((await box.json(['blog-key', 'show'])).endpoint).toBe('https://svc.example.org/api/v1/content');
    const apiKey = await box.cli(['api-keys', 'create', '--name', 'agent', '--scopes', 'read']);
    expect(apiKey.code, apiKey.stderr).toBe(0);
    expect(apiKey.stdout).toContain('to https://svc.example.org/api/mcp');
    // With the daemon's own setting, nothing to warn about.
    const same = await box.cli(['blog-key', 'show'], { env: { SVC_BASE_URL: 'https://svc.example.org' } });
    expect(same.stderr).toBe('');
    expect(same.stdout).toContain('endpoint: https://svc.example.org/api/v1/content');

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    expect(recordsIn(box.env.SVC_STATE_DIR)).toEqual([]);
  }, 90_000);

  it('svc init from another directory, without the daemon\'s config, refuses to create a second database, naming the one served and the daemon\'s config file; --new-database goes ahead', async () => {
    const box = await initialised();
    // The daemon's settings in a config file of its own, as under systemd.
    const configFile = path.join(box.dir, 'svc.yaml');
    const pgUrl = box.env.SVC_DATABASE_URL;
    writeFileSync(configFile, `dataDir: ${box.dir}\n${pgUrl ? `database:\n  url: ${pgUrl}\n` : ''}`);
    const served = pgUrl ?? path.join(box.dir, 'svc.sqlite');
    const daemon = await serve({ ...box.env, SVC_CONFIG: configFile, SVC_DATA_DIR: '', SVC_DATABASE_URL: '' }, box.dir);
    const elsewhere = tempDir();
    const env = { SVC_CONFIG: 'none', SVC_LOG_LEVEL: 'silent', SVC_STATE_DIR: box.env.SVC_STATE_DIR };
    const init = ['init', '--email', 'second@example.com', '--password', 'second-password', '--website', 'https://second.example'];
    const refused = await runCli(init, { env, cwd: elsewhere });
    expectCleanError(refused, 1, `error: A running svc daemon (pid ${daemon.child.pid}) serves ${served}, but this command would create a new SQLite database ${path.join(elsewhere, 'data', 'svc.sqlite')} (database.url is not set (no config file was found, nor SVC_DATABASE_URL)).`);
    expect(refused.stderr).toContain(`hint: Run svc with the daemon's config file: --config ${configFile} (or SVC_CONFIG=${configFile}). To create this new database anyway, add --new-database.`);
    expect(existsSync(path.join(elsewhere, 'data'))).toBe(false);
    const asJson = await runCli([...init, '--json'], { env, cwd: elsewhere });
    expect(asJson.json().error).toMatchObject({ code: 'database_elsewhere', served, daemonConfigFile: configFile });

    // Pointed at the daemon's config, the same command reaches the database served.
    const listed = await runCli(['workspaces', 'list', '--json', '--config', configFile], { env, cwd: elsewhere });
    expect(listed.json().map((w: { name: string }) => w.name)).toEqual(['example.com']);
    const anyway = await runCli([...init, '--new-database'], { env, cwd: elsewhere });
    expect(anyway.code, anyway.stderr).toBe(0);
    expect(existsSync(path.join(elsewhere, 'data', 'svc.sqlite'))).toBe(true);
    // Once it exists it is not new: commands on it run (warning-free: another data directory).
    const second = await runCli(['workspaces', 'list'], { env, cwd: elsewhere });
    expect(second.code, second.stderr).toBe(0);
  }, 90_000);

  it('a command that would create a new database while the daemon serves another refuses, naming the one served; svc migrate too', async () => {
    const box = await initialised();
    await serve(box.env, box.dir);
    // Without the daemon's database settings (on PostgreSQL: no SVC_DATABASE_URL), the command would start an empty SQLite file.
    const stray = { SVC_DATABASE_URL: '', SVC_DATABASE_FILENAME: 'stray.sqlite' };
    for (const args of [['workspaces', 'list'], ['migrate']]) {
      const r = await box.cli(args, { env: stray });
      expectCleanError(r, 1, 'error: A running svc daemon (pid ');
      expect(r.stderr).toContain(`but this command would create a new SQLite database ${path.join(box.dir, 'stray.sqlite')} (SVC_DATABASE_FILENAME names it).`);
      expect(r.stderr).toContain("hint: The daemon read no config file: give svc its database in a config file both read");
    }
    expect(existsSync(path.join(box.dir, 'stray.sqlite'))).toBe(false);
    // The database the daemon serves is still reached as before.
    expect((await box.json(['workspaces', 'list'])).map((w: { name: string }) => w.name)).toEqual(['example.com']);
  }, 90_000);

  it.runIf(withPg)('migrations on an empty PostgreSQL database while a daemon serves another are refused too', async () => {
    const box = await initialised();
    const daemon = await serve(box.env, box.dir);
    const empty = await createPgDatabase(PG_ADMIN);
    const r = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: empty } });
    expectCleanError(r, 1, `error: A running svc daemon (pid ${daemon.child.pid}) serves `);
    expect(r.stderr).toContain(`but this command would migrate the empty PostgreSQL database ${empty} (SVC_DATABASE_URL).`);
    const migrate = await box.cli(['migrate'], { env: { SVC_DATABASE_URL: empty } });
    expectCleanError(migrate, 1, 'but this command would migrate the empty PostgreSQL database');
    const status = await box.cli(['migrate', '--status', '--json'], { env: { SVC_DATABASE_URL: empty } });
    expect(status.json().applied).toEqual([]);
  }, 90_000);

  it('migrate --status and doctor show the database and config file used, the daemon\'s record, and warn when they differ', async () => {
    const box = await initialised();
    const daemon = await serve({ ...box.env, SVC_BASE_URL: 'https://svc.example.org' }, box.dir);
    const database = box.env.SVC_DATABASE_URL ? box.env.SVC_DATABASE_URL : path.join(box.dir, 'svc.sqlite');
    const status = await box.cli(['migrate', '--status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`database: ${database} (${box.env.SVC_DATABASE_URL ? 'SVC_DATABASE_URL' : 'database.url is not set and SVC_DATA_DIR names its directory'})`);
    expect(status.stdout).toContain('config file: none (looked for --config, SVC_CONFIG, /etc/svc/config.yaml, ./config.yaml)');
    expect(status.stdout).toContain(`daemon: pid ${daemon.child.pid} serves ${database} at https://svc.example.org (config file none)`);
    expect(status.stdout).toContain(`warning: the daemon (pid ${daemon.child.pid}) serves https://svc.example.org, but this command's server.baseUrl is http://127.0.0.1:8080 (the default server.baseUrl)`);
    const doctor = await box.json(['doctor']);
    expect(doctor.findings).toEqual(
      expect.arrayContaining([
        { level: 'ok', check: 'config file', detail: 'none (looked for --config, SVC_CONFIG, /etc/svc/config.yaml, ./config.yaml)' },
        { level: 'ok', check: `daemon pid ${daemon.child.pid}`, detail: `serves ${database} at https://svc.example.org (config file none)` },
        expect.objectContaining({ level: 'warn', check: 'settings', detail: expect.stringContaining('serves https://svc.example.org, but this command') }),
      ]),
    );
    // Another database than the daemon's: said in so many words.
    const otherEnv = { SVC_DATABASE_URL: '', SVC_DATABASE_FILENAME: 'other.sqlite' };
    const missing = await box.cli(['migrate', '--status'], { env: otherEnv });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`There is no svc database at ${path.join(box.dir, 'other.sqlite')} (SVC_DATABASE_FILENAME names it): nothing to report`);
    expect(existsSync(path.join(box.dir, 'other.sqlite'))).toBe(false);
    expect((await box.cli(['migrate', '--new-database'], { env: otherEnv })).code).toBe(0);
    const other = await box.cli(['migrate', '--status'], { env: otherEnv });
    expect(other.stdout).toContain(`warning: no running daemon serves ${path.join(box.dir, 'other.sqlite')}`);
  }, 90_000);

  it('a daemon record outside the state directory is never read; the default state directories are the machine\'s and the user\'s', async () => {
    const box = await initialised();
    // A live process (this test's) recorded as a daemon serving another database, in the directory
    // the CLI would read without SVC_STATE_DIR.
    const xdg = tempDir();
    mkdirSync(path.join(xdg, 'svc'));
    writeFileSync(path.join(xdg, 'svc', `daemon-${process.pid}.json`), JSON.stringify({ pid: process.pid, database: 'sqlite:/srv/production/svc.sqlite', since: new Date().toISOString(), webhooks: { allowPrivateNetworks: false, allowedHosts: [] }, configFile: '/etc/svc/config.yaml' }));
    const env = { XDG_STATE_HOME: xdg, SVC_DATABASE_URL: '', SVC_DATABASE_FILENAME: 'new.sqlite' };
    const isolated = await box.cli(['migrate'], { env });
    expect(isolated.code, isolated.stderr).toBe(0);
    expect(isolated.stderr).not.toContain('production');
    const system = tempDir();
    const defaults = loadConfig({ env: { XDG_STATE_HOME: xdg, SVC_CONFIG: 'none' }, cwd: box.dir, systemStateDir: system });
    expect(defaults.stateDirs).toEqual([system, path.join(xdg, 'svc')]);
    expect(liveDaemons(defaults).map((d) => d.database)).toEqual(['sqlite:/srv/production/svc.sqlite']);
    expect(loadConfig({ env: { HOME: '/home/op', SVC_CONFIG: 'none' }, cwd: box.dir, systemStateDir: system }).stateDirs).toEqual([system, '/home/op/.local/state/svc']);
  }, 90_000);
});
