import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { commandPath } from '../../src/cli/harness.js';
import { declaredMayCreateDatabase } from '../../src/cli/may-create.js';
import type { Command } from 'commander';
import { PG_URL, createPgDatabase } from '../helpers/env.js';
import { sandbox } from './sandbox.js';

const leaves = (c: Command): Command[] => c.commands.flatMap((s) => (s.commands.length ? leaves(s) : [s]));

// Each command that only reads, with the arguments it needs to get as far as the database.
const READ_ONLY_RUNS: string[][] = [
  ['migrate', '--status'],
  ['doctor'],
  ['backup', '--out', 'b.sqlite'],
  ['db', 'copy', '--to', 'postgres://svc@127.0.0.1:9/svc'],
  ['users', 'list'],
  ['workspaces', 'list'],
  ['workspaces', 'show', 'example.com'],
  ['members', 'list'],
  ['articles', 'list'],
  ['articles', 'show', 'a-slug'],
  ['keywords', 'list'],
  ['images', 'list'],
  ['blog-key', 'show'],
  ['webhook', 'show'],
  ['webhook', 'deliveries'],
  ['api-keys', 'list'],
  ['connections', 'list'],
];

describe('commands that only read never create a database', () => {
  it('only the commands declared to may create a database do; the ones run below are real and not declared', async () => {
    const program = await buildProgram({ stdout: process.stdout, stderr: process.stderr, env: {}, cwd: '/' } as never);
    const commands = leaves(program);
    // A new command refuses a missing database unless it is declared (mayCreateDatabase): adding one here is a decision.
    expect(commands.filter(declaredMayCreateDatabase).map(commandPath).sort()).toEqual(['init', 'migrate', 'serve', 'users add', 'workspaces add']);
    const byPath = new Map(commands.map((c) => [commandPath(c), c]));
    for (const args of READ_ONLY_RUNS) {
      const name = args.filter((a) => !a.startsWith('-') && /^[a-z-]+$/.test(a)).slice(0, 2).join(' ');
      const command = byPath.get(name) ?? byPath.get(args[0]);
      expect(command, name).toBeDefined();
      if (command!.name() !== 'migrate') expect(declaredMayCreateDatabase(command!), name).toBe(false);
    }
  });

  it('on a SQLite file that is not there, each says so, names why it looked there and how to create one, exits 1 and creates nothing', async () => {
    const box = await sandbox();
    const data = path.join(box.dir, 'nothing-here');
    const env = { SVC_DATABASE_URL: '', SVC_DATA_DIR: data };
    const database = path.join(data, 'svc.sqlite');
    for (const args of READ_ONLY_RUNS) {
      const r = await box.cli(args, { env });
      const said = `${args.join(' ')}:\n${r.stdout}${r.stderr}`;
      expect(r.code, said).toBe(1);
      expect(r.stdout + r.stderr, said).toContain(`There is no svc database at ${database} (database.url is not set and SVC_DATA_DIR names its directory)`);
      expect(r.stdout + r.stderr, said).toContain('To create it: svc init');
      expect(existsSync(data) ? readdirSync(data) : [], said).toEqual([]);
      expect(existsSync(path.join(box.dir, 'b.sqlite')), said).toBe(false);
    }
    // A command that writes still creates it (a fresh data directory just works).
    expect((await box.cli(['migrate'], { env })).code).toBe(0);
    expect(existsSync(database)).toBe(true);
    expect((await box.cli(['workspaces', 'list'], { env })).code).toBe(0);
  }, 60_000);

  // On PostgreSQL a database nothing migrated has no svc tables; the SQLite-only and PostgreSQL-only
  // cases aside (db copy copies SQLite, backup runs pg_dump and migrate --status lists what is pending),
  // each command refuses it the same way and creates no table.
  it.runIf(PG_URL)('on a PostgreSQL database without svc tables, each says so without the password, exits 1 and creates no table', async () => {
    const box = await sandbox();
    const url = await createPgDatabase(PG_URL);
    const env = { SVC_DATABASE_URL: url };
    for (const args of READ_ONLY_RUNS) {
      const r = await box.cli(args, { env });
      const said = `${args.join(' ')}:\n${r.stdout}${r.stderr}`;
      if (args[0] === 'db') {
        expect(r.code, said).toBe(2);
        continue;
      }
      if (args[0] === 'backup' || (args[0] === 'migrate' && args[1] === '--status')) continue;
      expect(r.code, said).toBe(1);
      expect(r.stdout + r.stderr, said).toMatch(/There is no svc database at postgres(ql)?:\/\/[^ ]+ \(no svc tables\)/);
      expect(r.stdout + r.stderr, said).toContain('To create it: svc init');
      if (new URL(url).password) expect(r.stdout + r.stderr, said).not.toContain(new URL(url).password);
    }
    expect(await tables(url)).toEqual([]);
    // A command declared to create one still does.
    expect((await box.cli(['migrate'], { env })).code).toBe(0);
    expect(await tables(url)).toContain('knex_migrations');
    expect((await box.cli(['workspaces', 'list'], { env })).code).toBe(0);
  }, 120_000);
});

/** The tables of every schema but PostgreSQL's own. */
async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1");
    return r.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}
