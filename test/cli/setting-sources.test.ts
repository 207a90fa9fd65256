import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, sandbox } from './sandbox.js';

// Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
const UNREACHABLE = 'postgres://svc@127.0.0.1:9/svc';

describe('messages name where a setting came from', () => {
  it('an unreachable database: the hint names database.url in the file that set it, or SVC_DATABASE_URL', async () => {
    const box = await sandbox();
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(file, `database:\n  url: ${UNREACHABLE}\n`);
    const fromFile = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: '', SVC_CONFIG: file } });
    expectCleanError(fromFile, 1, `error: Cannot reach the database ${UNREACHABLE}: it refused the connection (refused)`);
    expect(fromFile.stderr).toContain(`Check database.url in ${file} and that the server is running.`);
    const fromEnv = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: UNREACHABLE } });
    expectCleanError(fromEnv, 1, 'Check SVC_DATABASE_URL and that the server is running.');
  });

  it('db copy and restore on PostgreSQL name database.url in the file that set it, or SVC_DATABASE_URL', async () => {
    const box = await sandbox();
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(file, `database:\n  url: ${UNREACHABLE}\n`);
    const backup = path.join(box.dir, 'backup.sqlite');
    writeFileSync(backup, '');
    for (const [args, what] of [
      [['db', 'copy', '--to', 'postgres://svc@127.0.0.1:9/other'], 'svc db copy copies a SQLite installation; this one already uses PostgreSQL'],
      [['restore', backup], 'svc restore restores SQLite installations; this one uses PostgreSQL'],
    ] as const) {
      const fromFile = await box.cli([...args], { env: { SVC_DATABASE_URL: '', SVC_CONFIG: file } });
      expectCleanError(fromFile, 2, `${what} (database.url in ${file})`);
      const fromEnv = await box.cli([...args], { env: { SVC_DATABASE_URL: UNREACHABLE } });
      expectCleanError(fromEnv, 2, `${what} (SVC_DATABASE_URL)`);
    }
  });

  it('a SQLite file marked as moved: the refusal says which settings chose the file', async () => {
    const box = await sandbox();
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(file, 'logging:\n  level: warn\n');
    const sqlite = { SVC_DATABASE_URL: '', SVC_CONFIG: file, SVC_DATA_DIR: '' };
    expect((await box.cli(['migrate'], { env: sqlite })).code).toBe(0);
    const database = path.join(box.dir, 'data', 'svc.sqlite');
    expect(existsSync(database)).toBe(true);
    writeFileSync(`${database}-moved.json`, JSON.stringify({ to: 'postgres://svc@db.example:5432/svc', at: '2026-11-29T08:00:00.000Z' }));
    const fromFile = await box.cli(['workspaces', 'list'], { env: sqlite });
    expectCleanError(fromFile, 1, `error: The SQLite database ${database} was moved to postgres://svc@db.example:5432/svc`);
    expect(fromFile.stderr).toContain(`(this command uses the file because database.url is not set (not in ${file}, nor SVC_DATABASE_URL))`);
    const named = await box.cli(['workspaces', 'list'], { env: { ...sqlite, SVC_DATABASE_FILENAME: database } });
    expect(named.stderr).toContain('(this command uses the file because SVC_DATABASE_FILENAME names it)');
  });

  it('a data directory that cannot be created: the hint names dataDir where it was set, never a variable that was not', async () => {
    const box = await sandbox();
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(path.join(box.dir, 'plain-file'), 'not a directory');
    writeFileSync(file, `dataDir: ${path.join(box.dir, 'plain-file', 'data')}\n`);
    const fromFile = await box.cli(['migrate'], { env: { SVC_DATABASE_URL: '', SVC_DATA_DIR: '', SVC_CONFIG: file } });
    expectCleanError(fromFile, 1, `Cannot create the data directory ${path.join(box.dir, 'plain-file')}`);
    expect(fromFile.stderr).toContain(`The data directory is set by dataDir in ${file}.`);
    expect(fromFile.stderr).not.toContain('SVC_DATA_DIR');
    const fromEnv = await box.cli(['migrate'], { env: { SVC_DATABASE_URL: '', SVC_DATA_DIR: path.join(box.dir, 'plain-file', 'data') } });
    expect(fromEnv.stderr).toContain('The data directory is set by SVC_DATA_DIR.');
  });

  it('without the settings (the library, not the CLI), an unreachable database names the setting, not a variable', async () => {
    const { cannotReach } = await import('../../src/db/errors.js');
    const { unavailable } = await import('../../src/errors.js');
    const err = cannotReach('postgres://svc@db:5432/svc', unavailable('database', 'x', { failure: 'refused' }));
    expect(err?.hint).toBe('check the setting that names it (database.url) and that the server accepts svc');
    const file = cannotReach('sqlite:/srv/svc.sqlite', unavailable('database', 'x', { failure: 'read_only' }));
    expect(file?.hint).not.toMatch(/SVC_/);
  });

  it('a dump past its deadline names database.backupTimeout where it was set, or both places to set it', async () => {
    const { settingToChange } = await import('../../src/config/load.js');
    expect(settingToChange({ sources: {} }, 'database.backupTimeout')).toBe('database.backupTimeout (in the config file, or SVC_DATABASE_BACKUP_TIMEOUT; now the default)');
    expect(settingToChange({ sources: { 'database.backupTimeout': '/etc/svc/config.yaml: database.backupTimeout' } }, 'database.backupTimeout')).toBe('database.backupTimeout in /etc/svc/config.yaml');
  });
});
