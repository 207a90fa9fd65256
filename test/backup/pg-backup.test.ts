import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { startRelay } from '../helpers/relay.js';
import { PG_ADMIN, pgAvailable } from './pg.js';

/** A URL with a password (the server trusts local connections, so any password works). */
const withPassword = (url: string) => {
  const u = new URL(url);
  u.password = 's3cret-pw';
  return u.toString();
};

/** `svc backup` of a fresh database reached through a fault proxy that accepts and never answers (a dead host behind a NAT). */
async function backupOverSilentLink(extraEnv: Record<string, string>) {
  const dir = tempDir();
  const direct = new URL(await createPgDatabase(PG_ADMIN));
  const relay = await startRelay(direct.hostname, Number(direct.port || 5432));
  const url = new URL(withPassword(direct.toString()));
  url.host = `127.0.0.1:${relay.port}`;
  relay.silence();
  const out = tempDir();
  const env = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_DATABASE_URL: url.toString(), PATH: process.env.PATH ?? '', ...extraEnv };
  const started = performance.now();
  const r = await runCli(['backup', '--out', path.join(out, 'svc.dump')], { env, cwd: dir });
  return { r, ms: performance.now() - started, out };
}

describe.runIf(await pgAvailable())('svc backup on PostgreSQL', () => {
  it('runs pg_dump (password in PGPASSWORD, never on the command line) and checks the archive; pg_restore brings the data back', async () => {
    const dir = tempDir();
    const url = withPassword(await createPgDatabase(PG_ADMIN));
    const env = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_DATABASE_URL: url, PATH: process.env.PATH ?? '' };
    expect((await runCli(['workspaces', 'add', '--name', 'pg.example', '--website', 'https://pg.example'], { env, cwd: dir })).code).toBe(0);

    const file = path.join(tempDir(), 'svc.dump');
    const r = await runCli(['backup', '--out', file, '--json'], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ file, database: 'postgres', method: 'pg_dump', bytes: statSync(file).size, durationMs: expect.any(Number), check: expect.stringMatching(/^pg_restore --list read \d+ entries$/) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['svc.dump']);

    // The restore drill for PostgreSQL: into a new database, then svc reads it.
    const restored = await createPgDatabase(PG_ADMIN);
    execFileSync('pg_restore', ['--no-owner', `--dbname=${restored}`, file]);
    const listed = await runCli(['workspaces', 'list', '--json'], { env: { ...env, SVC_DATABASE_URL: restored }, cwd: dir });
    expect(listed.json<Array<{ name: string }>>().map((w) => w.name)).toEqual(['pg.example']);
  }, 60_000);

  it('without pg_dump on PATH it prints the command to run (no password in it) and exits 1, writing nothing', async () => {
    const dir = tempDir();
    const url = withPassword(await createPgDatabase(PG_ADMIN));
    const out = tempDir();
    const file = path.join(out, 'svc.dump');
    const env = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_DATABASE_URL: url, PATH: '/nonexistent' };
    const r = await runCli(['backup', '--out', file], { env, cwd: dir });
    const bare = new URL(url);
    bare.password = '';
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      `error: pg_dump is not installed here (not on PATH), so svc cannot back up PostgreSQL itself. Run:\n  pg_dump --format=custom --no-owner --file=${file} --dbname=${bare}\n` +
        "hint: Install the PostgreSQL client tools (Debian/Ubuntu: apt install postgresql-client, the server's major version or newer), or run the command above where they are; PGPASSWORD or ~/.pgpass supplies the password.\n",
    );
    expect(r.stderr).not.toContain('s3cret');
    expect(readdirSync(out)).toEqual([]);
    const json = await runCli(['backup', '--out', file, '--json'], { env, cwd: dir });
    expect(json.json().error).toMatchObject({ code: 'pg_dump_missing', command: `pg_dump --format=custom --no-owner --file=${file} --dbname=${bare}` });
  }, 60_000);

  // pg_dump waits on the database like everything else: over a link that accepts and then never
  // answers (a dead host behind a NAT) it would wait for hours. Each check fails without the deadline.
  it('pg_dump over a silent link: ended at database.backupTimeout with an error naming it, exit 1, nothing written', async () => {
    // The connect deadline set long, so it is the whole run's deadline that ends it.
    const { r, ms, out } = await backupOverSilentLink({ SVC_DATABASE_CONNECT_TIMEOUT: '60s', SVC_DATABASE_BACKUP_TIMEOUT: '1s' });
    expect(ms).toBeLessThan(5_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(
      'error: pg_dump did not finish within 1 s (SVC_DATABASE_BACKUP_TIMEOUT) and was stopped; nothing was written\n' +
        'hint: If the database answers (svc doctor), the dump needs longer: raise SVC_DATABASE_BACKUP_TIMEOUT.\n',
    );
    expect(readdirSync(out)).toEqual([]);
  }, 30_000);

  it("pg_dump's connection gets database.connectTimeout (libpq's PGCONNECT_TIMEOUT): a silent link fails at it, naming the timeout", async () => {
    const { r, ms, out } = await backupOverSilentLink({ SVC_DATABASE_CONNECT_TIMEOUT: '2s' });
    expect(ms).toBeLessThan(8_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^error: pg_dump failed: .*timeout expired/);
    expect(readdirSync(out)).toEqual([]);
  }, 30_000);
});
