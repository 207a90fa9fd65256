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
    expect((await box.cli(['workspaces', 'list'], { env: sqlite })).code).toBe(0);
    const database = path.join(box.dir, 'data', 'svc.sqlite');
    expect(existsSync(database)).toBe(true);
    writeFileSync(`${database}-moved.json`, JSON.stringify({ to: 'postgres://svc@db.example:5432/svc', at: '2026-11-29T08:00:00.000Z' }));
    const fromFile = await box.cli(['workspaces', 'list'], { env: sqlite });
    expectCleanError(fromFile, 1, `error: The SQLite database ${database} was moved to postgres://svc@db.example:5432/svc`);
    expect(fromFile.stderr).toContain(`(this command uses the file because database.url is not set (not in ${file}, nor SVC_DATABASE_URL))`);
    const named = await box.cli(['workspaces', 'list'], { env: { ...sqlite, SVC_DATABASE_FILENAME: database } });
    expect(named.stderr).toContain('(this command uses the file because SVC_DATABASE_FILENAME names it)');
  });
});
