import type { Command } from 'commander';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DESTRUCTIVE_COMMANDS, NOT_DESTRUCTIVE } from '../../src/cli/destructive.js';
import { buildProgram } from '../../src/cli/program.js';
import { writeFileSync } from 'node:fs';
import { GIF_1X1 } from '../images/png.js';
import { initialised } from './sandbox.js';

/** Every leaf command of the table, by its path (`webhook remove`). */
function leaves(program: Command): Map<string, Command> {
  const out = new Map<string, Command>();
  const walk = (c: Command, prefix: string) => {
    for (const sub of c.commands) {
      const name = prefix ? `${prefix} ${sub.name()}` : sub.name();
      if (sub.commands.length === 0) out.set(name, sub);
      walk(sub, name);
    }
  };
  walk(program, '');
  return out;
}

const SOUNDS_DESTRUCTIVE = /delete|remove|revoke|restore|rollback|regenerate|rotate|reset|force|drop|purge|clear|replace/;
const program = await buildProgram({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from(['']), interactive: false, env: {}, cwd: '/' });
const commands = leaves(program);

describe('one rule for destructive commands', () => {
  it('every command that sounds destructive is in the list, and every listed one takes --yes', () => {
    expect(commands.size).toBeGreaterThan(40);
    for (const [name, command] of commands) {
      const words = [name, ...command.options.map((o) => o.long ?? '')].join(' ');
      if (SOUNDS_DESTRUCTIVE.test(words)) {
        expect(name in DESTRUCTIVE_COMMANDS || name in NOT_DESTRUCTIVE, `"svc ${name}" (${words}) deletes or replaces data: add it to DESTRUCTIVE_COMMANDS in src/cli/destructive.ts and confirm it`).toBe(true);
      }
    }
    for (const [name, rule] of Object.entries(DESTRUCTIVE_COMMANDS)) {
      const command = commands.get(name);
      expect(command, `DESTRUCTIVE_COMMANDS names "svc ${name}", which does not exist`).toBeDefined();
      const longs = command!.options.map((o) => o.long);
      expect(longs, `svc ${name} needs --yes`).toContain('--yes');
      if (rule.when) expect(longs).toContain(rule.when);
    }
    for (const name of Object.keys(NOT_DESTRUCTIVE)) expect(commands.has(name), `NOT_DESTRUCTIVE names "svc ${name}", which does not exist`).toBe(true);
  });

  it('without a terminal and without --yes each one refuses (exit 2, naming --yes) and changes nothing', async () => {
    const box = await initialised();
    const article = await box.json(['articles', 'add', '--title', 'Kept', '--body', 'Body']);
    await box.json(['blog-key', 'generate']);
    await box.json(['webhook', 'set', '--url', 'https://hooks.example.com/svc', '--generate-secret']);
    const key = await box.json(['api-keys', 'create', '--name', 'agent', '--scopes', 'read']);
    await box.json(['users', 'add', '--email', 'member@example.com', '--password', 'member-password']);
    await box.json(['members', 'add', '--email', 'member@example.com', '--role', 'editor']);
    writeFileSync(`${box.dir}/dot.gif`, GIF_1X1);
    const image = (await box.json(['images', 'add', `${box.dir}/dot.gif`])).images[0];
    const sqlite = !process.env.SVC_TEST_DATABASE_URL;
    if (sqlite) await box.json(['backup', '--out', `${box.dir}/before.sqlite`]);
    const sqliteOnly = 'restores and copies SQLite installations; on PostgreSQL it refuses before asking';
    const args: Record<string, string[] | string> = {
      restore: sqlite ? ['restore', `${box.dir}/before.sqlite`] : sqliteOnly,
      'db copy': sqlite ? ['db', 'copy', '--to', 'postgres://nobody@127.0.0.1:1/none', '--force'] : sqliteOnly,
      migrate: 'the install batch is refused even with --yes (test/cli/migrate.test.ts); an upgrade batch asks there too',
      'users remove': ['users', 'remove', '--email', 'member@example.com'],
      'members remove': ['members', 'remove', '--email', 'member@example.com'],
      'articles delete': ['articles', 'delete', article.slug],
      'keywords remove': ['keywords', 'remove', 'seo tools'],
      'images remove': ['images', 'remove', image.url],
      'blog-key regenerate': ['blog-key', 'regenerate'],
      'blog-key revoke': ['blog-key', 'revoke'],
      'webhook remove': ['webhook', 'remove'],
      'webhook rotate-secret': ['webhook', 'rotate-secret'],
      'api-keys revoke': ['api-keys', 'revoke', key.id],
      'connections revoke': 'needs an OAuth connection: test/cli/connections.test.ts refuses without --yes',
    };
    expect(Object.keys(args).sort()).toEqual(Object.keys(DESTRUCTIVE_COMMANDS).sort());
    const state = async () => ({
      articles: await box.json(['articles', 'list']),
      key: await box.json(['blog-key', 'show']),
      webhook: await box.json(['webhook', 'show', '--show-secret']),
      apiKeys: await box.json(['api-keys', 'list']),
      members: await box.json(['members', 'list']),
      users: await box.json(['users', 'list']),
      images: await box.json(['images', 'list']),
    });
    const before = await state();
    for (const [name, argv] of Object.entries(args)) {
      if (typeof argv === 'string') continue;
      const r = await box.cli(argv);
      expect({ name, code: r.code, refused: /Refusing without --yes/.test(r.stderr) }, r.stderr).toEqual({ name, code: 2, refused: true });
      expect(r.stderr, name).toContain('hint: Pass --yes to confirm.');
    }
    expect(await state()).toEqual(before);
  });
});
