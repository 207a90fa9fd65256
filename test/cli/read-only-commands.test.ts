import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { READS_ONLY, commandPath } from '../../src/cli/harness.js';
import type { Command } from 'commander';
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
  it('the list of read-only commands names real commands, and each is run below', () => {
    const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, env: {}, cwd: '/' } as never);
    const all = new Set(leaves(program).map(commandPath));
    for (const name of READS_ONLY) expect(all, name).toContain(name);
    const ran = new Set(READ_ONLY_RUNS.map((args) => args.filter((a) => !a.startsWith('-') && /^[a-z-]+$/.test(a)).slice(0, 2).join(' ')));
    for (const name of READS_ONLY) expect(ran, name).toContain(name);
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
});
