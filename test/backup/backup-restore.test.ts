import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { openDb } from '../../src/db/connect.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL, tempDir } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { serve } from '../helpers/serve.js';
import { rpc, toolCall } from '../mcp/helpers.js';

// SQLite installations; PostgreSQL backups are in pg-backup.test.ts.
const sqliteEnv = (dir: string) => ({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function articlesServed(url: string, key: string): Promise<string[]> {
  const slugs: string[] = [];
  for (let page = 0; ; page++) {
    const res = await fetch(`${url}/api/v1/content/articles?page=${page}&limit=100`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { articles: Array<{ slug: string }> } };
    slugs.push(...data.articles.map((a) => a.slug));
    if (data.articles.length < 100) return slugs;
  }
}

describe.skipIf(Boolean(PG_URL))('svc backup and svc restore (SQLite)', () => {
  it('a backup taken while agents publish over HTTP holds every article published before it started; restored into a fresh data directory, a daemon serves them with the same blog key', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const admin = await seedUser(d.app, ws, 'admin');
    const { key: blogKey } = await generateBlogKey(d.app, ws);
    const raised = await runCli(['workspaces', 'set', '--workspace', ws.id, '--allowance', 'articles=100000'], { env: d.env, cwd: d.dir });
    expect(raised.code, raised.stderr).toBe(0);
    const { key: apiKey } = await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'writer', scopes: ['read', 'content', 'publish'] });

    // Two agents publish over MCP for as long as the test runs; each slug is recorded when its publish returned.
    const published: string[] = [];
    let stop = false;
    const writer = async (name: string) => {
      for (let i = 0; !stop; i++) {
        stop ||= published.length > 5000; // a bound, should the backup never return
        const slug = `${name}-${i}`;
        const created = await rpc(d, toolCall('create_article', { title: `Post ${slug}`, slug, bodyMarkdown: '## Hello\n\nWords.' }), { Authorization: `Bearer ${apiKey}` });
        const createdText = await created.text();
        expect(createdText, createdText).not.toMatch(/"isError":true/);
        const pub = await rpc(d, toolCall('publish_article', { slug }), { Authorization: `Bearer ${apiKey}` });
        const text = await pub.text();
        expect(text, text).not.toMatch(/"isError":true/);
        published.push(slug);
      }
    };
    const writers = [writer('a'), writer('b')].map((w) => w.finally(() => (stop = true)));
    const waitFor = async (n: number) => {
      while (published.length < n && !stop) await new Promise((r) => setTimeout(r, 20));
    };
    await waitFor(10);

    const file = path.join(tempDir(), 'nightly.sqlite');
    const before = [...published];
    const backup = await spawnCli(['backup', '--out', file], { env: d.env, cwd: d.dir, timeoutMs: 60_000 });
    const duringBackup = published.length - before.length;
    await waitFor(before.length + duringBackup + 4);
    stop = true;
    await Promise.all(writers);

    expect(backup.code, backup.stderr).toBe(0);
    expect(duringBackup).toBeGreaterThan(0); // the agents kept publishing while it ran
    expect(backup.stdout).toMatch(new RegExp(`^Backed up to ${file}: [\\d.]+ (B|KiB|MiB) in [\\d.]+ m?s \\(vacuum-into; integrity_check ok\\)\\n$`));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['nightly.sqlite']); // no partial file left

    const fresh = tempDir();
    const restore = await runCli(['restore', file, '--yes'], { env: sqliteEnv(fresh), cwd: fresh });
    expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: '' });
    expect(restore.stdout).toBe(`Restored ${path.join(fresh, 'svc.sqlite')} from ${file}\nThere was no database here before.\n`);

    const db = openDb({ client: 'sqlite3', filename: path.join(fresh, 'svc.sqlite'), poolMax: 1 });
    expect(await db.raw('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    await db.destroy();
    const restored = await startDaemonOn(sqliteEnv(fresh), fresh, {}, false);
    const served = await articlesServed(restored.url, blogKey);
    expect(before.filter((slug) => !served.includes(slug))).toEqual([]);
    // A snapshot, not a later state: what was published after the backup returned is not in it.
    expect(served.length).toBeLessThan(published.length);
  }, 120_000);

  it('restore is refused while a daemon serves the target, and then keeps the previous file (named in the output)', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'old.example', '--website', 'https://old.example'], { env, cwd: dir })).code).toBe(0);
    const file = path.join(tempDir(), 'b.sqlite');
    expect((await runCli(['backup', '--out', file], { env, cwd: dir })).code).toBe(0);
    expect((await runCli(['workspaces', 'add', '--name', 'after-backup.example', '--website', 'https://after.example'], { env, cwd: dir })).code).toBe(0);

    const daemon = await serve(env, dir);
    const refused = await runCli(['restore', file, '--yes'], { env, cwd: dir });
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: Cannot restore over ${path.join(dir, 'svc.sqlite')}: an svc daemon (or another restore) is using it\nhint: Stop the daemon first (e.g. sudo systemctl stop svc), restore, then start it again.\n`,
    });
    const listed = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(listed.json<Array<{ name: string }>>().map((w) => w.name).sort()).toEqual(['after-backup.example', 'old.example']);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    const restored = await runCli(['restore', file, '--yes', '--json'], { env, cwd: dir });
    expect(restored.code, restored.stderr).toBe(0);
    const result = restored.json<{ database: string; previous: string; migrated: string[] }>();
    expect(result.previous).toMatch(new RegExp(`^${path.join(dir, 'svc.sqlite')}\\.before-restore-\\d{8}T\\d{6}Z(-\\d+)?$`));
    expect(statSync(result.previous).mode & 0o777).toBe(0o600);
    expect(result.migrated).toEqual([]);
    const now = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(now.json<Array<{ name: string }>>().map((w) => w.name)).toEqual(['old.example']);
    // The previous file is a whole database: restoring it brings the later workspace back.
    const back = await runCli(['restore', result.previous, '--yes'], { env, cwd: dir });
    expect(back.code, back.stderr).toBe(0);
    const again = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(again.json<Array<{ name: string }>>().map((w) => w.name).sort()).toEqual(['after-backup.example', 'old.example']);
  }, 90_000);

  it('restore is refused while an svc command has the database open between its writes, so nothing it writes afterwards is lost; once it closes, the restore goes ahead', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'old.example', '--website', 'https://old.example'], { env, cwd: dir })).code).toBe(0);
    const file = path.join(tempDir(), 'b.sqlite');
    expect((await runCli(['backup', '--out', file], { env, cwd: dir })).code).toBe(0);

    // A command (an import, a script) that has written and keeps its connection for its next write.
    const filename = path.join(dir, 'svc.sqlite');
    const command = openDb({ client: 'sqlite3', filename, poolMax: 1 });
    await command.schema.createTable('probe', (t) => t.text('x'));
    await command('probe').insert({ x: 'first' });
    const refused = await runCli(['restore', file, '--yes', '--json'], { env, cwd: dir });
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.json().error.code).toBe('database_in_use');
    expect(readdirSync(dir).filter((f) => f.includes('before-restore'))).toEqual([]);
    await command('probe').insert({ x: 'second' }); // lands in the database the command opened
    await command.destroy();

    const restored = await runCli(['restore', file, '--yes', '--json'], { env, cwd: dir });
    expect(restored.code, restored.stderr).toBe(0);
    const previous = openDb({ client: 'sqlite3', filename: restored.json<{ previous: string }>().previous, poolMax: 1 });
    try {
      expect((await previous('probe').select('x')).map((r) => r.x)).toEqual(['first', 'second']);
    } finally {
      await previous.destroy();
    }
  }, 60_000);

  it('refuses garbage, a PostgreSQL dump, another SQLite database and a backup from a newer svc, leaving the target untouched', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'keep.example', '--website', 'https://keep.example'], { env, cwd: dir })).code).toBe(0);
    const target = path.join(dir, 'svc.sqlite');
    const files = tempDir();

    const garbage = path.join(files, 'garbage.sqlite');
    writeFileSync(garbage, 'this is not a database\n'.repeat(100));
    const dump = path.join(files, 'pg.dump');
    writeFileSync(dump, Buffer.concat([Buffer.from('PGDMP'), Buffer.alloc(200)]));
    const other = path.join(files, 'other.sqlite');
    const otherDb = openDb({ client: 'sqlite3', filename: other, poolMax: 1 });
    await otherDb.schema.createTable('notes', (t) => t.string('id'));
    await otherDb.destroy();
    const newer = path.join(files, 'newer.sqlite');
    expect((await runCli(['backup', '--out', newer], { env, cwd: dir })).code).toBe(0);
    const newerDb = openDb({ client: 'sqlite3', filename: newer, poolMax: 1 });
    await newerDb('knex_migrations').insert({ name: '2099-01-01-0000-add-future-notes', batch: 99, migration_time: new Date() });
    await newerDb.destroy();
    const corrupt = path.join(files, 'corrupt.sqlite');
    const good = readFileSync(newer);
    good.fill(0x41, 4096 * 2, 4096 * 6); // pages of the database overwritten, header intact
    writeFileSync(corrupt, good);

    const hash = sha(target);
    // The daemon-lock sidecar (svc.sqlite-daemon.lock) may appear: restore holds it while it works.
    const files_ = () => readdirSync(dir).filter((f) => !f.endsWith('-daemon.lock')).sort();
    const listing = files_();
    const cases: Array<[string, string, string]> = [
      [garbage, 'backup_invalid', `${garbage} is not an svc backup: it is not an SQLite database`],
      [dump, 'backup_invalid', `${dump} is a PostgreSQL dump: svc restore reads SQLite backups`],
      [other, 'backup_invalid', `${other} is not an svc database: it has no knex_migrations, workspaces, articles tables`],
      [newer, 'backup_newer', `${newer} was made by a newer version of svc: it has a migration this svc does not know (2099-01-01-0000-add-future-notes)`],
      [corrupt, 'backup_corrupt', `${corrupt} failed SQLite's integrity check`],
      [path.join(files, 'missing.sqlite'), 'backup_not_found', `Backup file ${path.join(files, 'missing.sqlite')} not found`],
    ];
    for (const [file, code, message] of cases) {
      const r = await runCli(['restore', file, '--yes', '--json'], { env, cwd: dir });
      expect({ file, code: r.code }).toEqual({ file, code: 1 });
      const error = r.json<{ error: { code: string; message: string } }>().error;
      expect({ file, code: error.code }).toEqual({ file, code });
      expect(error.message.startsWith(message), `${error.message}\n  should start with\n${message}`).toBe(true);
      expect(sha(target)).toBe(hash);
      expect(files_()).toEqual(listing);
    }
    const human = await runCli(['restore', dump, '--yes'], { env, cwd: dir });
    expect(human.stderr).toBe(`error: ${dump} is a PostgreSQL dump: svc restore reads SQLite backups\nhint: Restore it into a new PostgreSQL database (createdb svc_restored; pg_restore --no-owner --dbname postgres://.../svc_restored ${dump}) and point the daemons at it; or stop every daemon first, then pg_restore --clean --if-exists --no-owner --dbname postgres://.../svc ${dump} (docs/operations.md)\n`);
  }, 60_000);

  it('two backups to one name: one writes it, the other is refused; two restores at once: one restores, the other is refused', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'twice.example', '--website', 'https://twice.example'], { env, cwd: dir })).code).toBe(0);
    const file = path.join(tempDir(), 'same.sqlite');
    const both = await Promise.all([spawnCli(['backup', '--out', file, '--json'], { env, cwd: dir }), spawnCli(['backup', '--out', file, '--json'], { env, cwd: dir })]);
    expect(both.map((r) => r.code).sort()).toEqual([0, 1]);
    const loser = both.find((r) => r.code === 1)!;
    expect(loser.json().error.code).toBe('backup_exists');
    expect(readdirSync(path.dirname(file))).toEqual(['same.sqlite']);

    const restores = await Promise.all([spawnCli(['restore', file, '--yes', '--json'], { env, cwd: dir }), spawnCli(['restore', file, '--yes', '--json'], { env, cwd: dir })]);
    const codes = restores.map((r) => r.code).sort();
    // Both may succeed one after the other; never both at once (the second would find the lock).
    for (const r of restores) if (r.code !== 0) expect(r.json().error.code).toBe('database_in_use');
    expect(codes[0]).toBe(0);
    const listed = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
    expect(listed.json<Array<{ name: string }>>().map((w) => w.name)).toEqual(['twice.example']);
  }, 60_000);

  it("backup refuses the database's own sidecar names (-wal, -shm, -journal), also through a linked directory: the next svc command deleted a backup written as svc.sqlite-wal", async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    expect((await runCli(['workspaces', 'add', '--name', 'side.example', '--website', 'https://side.example'], { env, cwd: dir })).code).toBe(0);
    const linked = path.join(tempDir(), 'data-link');
    symlinkSync(dir, linked);
    const listing = readdirSync(dir).sort();
    for (const out of ['svc.sqlite-wal', 'svc.sqlite-shm', 'svc.sqlite-journal', path.join(linked, 'svc.sqlite-wal')]) {
      const r = await runCli(['backup', '--out', out, '--json'], { env, cwd: dir });
      expect({ out, code: r.code }).toEqual({ out, code: 1 });
      expect(r.json().error.code).toBe('backup_out_invalid');
      expect(readdirSync(dir).sort()).toEqual(listing);
    }
    const human = await runCli(['backup', '--out', 'svc.sqlite-wal'], { env, cwd: dir });
    expect(human.stderr).toBe(
      `error: ${path.join(dir, 'svc.sqlite-wal')} is one of the database's own files (beside ${path.join(dir, 'svc.sqlite')}): SQLite would delete or overwrite a backup there\nhint: Write backups into a directory of their own, e.g. --out /var/backups/svc/svc-$(date +%F).sqlite\n`,
    );
    // Beside the database under another name is allowed.
    expect((await runCli(['backup', '--out', 'svc.sqlite.bak'], { env, cwd: dir })).code).toBe(0);
  });

  it('backup refuses a data directory without a database, an existing file, and a missing --out', async () => {
    const dir = tempDir();
    const env = sqliteEnv(dir);
    const none = await runCli(['backup', '--out', path.join(dir, 'x.sqlite')], { env, cwd: dir });
    expect({ code: none.code, stderr: none.stderr }).toEqual({
      code: 1,
      stderr: expect.stringContaining(`error: There is no svc database at ${path.join(dir, 'svc.sqlite')} (database.url is not set and SVC_DATA_DIR names its directory): nothing to back up\nhint: To create it: svc init`),
    });
    expect(readdirSync(dir)).toEqual([]);
    // --out under a file, or in a directory svc cannot write: the error names --out, not the data directory.
    writeFileSync(path.join(dir, 'notes.txt'), 'not a directory');
    const under = await runCli(['backup', '--out', 'notes.txt/b.sqlite'], { env, cwd: dir });
    expect({ code: under.code, stderr: under.stderr }).toEqual({
      code: 1,
      stderr: `error: Cannot write the backup ${path.join(dir, 'notes.txt/b.sqlite')}: cannot create ${path.join(dir, 'notes.txt')}: it exists and is not a directory\nhint: Choose a directory for --out that the user svc runs as can write to (sudo -u svc ...).\n`,
    });
    const usage = await runCli(['backup'], { env, cwd: dir });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/required option '--out <file>' not specified/);
  });
});
