import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { expectCleanError, initialised, sandbox } from './sandbox.js';

const RECORD_LOADS = fileURLToPath(new URL('../helpers/record-loads.mjs', import.meta.url));

// The real bin/svc.js (compiled dist/) as a subprocess with no terminal: exit codes, stdout
// versus stderr, and that the process ends by itself after each command.
// Each test starts the binary ten times or more (a Node start each): on a loaded 2-core machine that
// alone passed the default 30 s. The deadline is for a hang, not for speed.
describe('the svc binary', { timeout: 90_000 }, () => {
  it('--version, --help, and usage mistakes (exit 2)', async () => {
    const box = await sandbox();
    const version = await box.spawn(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^svc ${VERSION.replace(/\./g, '\\.')} \\(([0-9a-f]{7,}|unknown)\\)\n$`)) });
    const help = await box.spawn(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['serve', 'migrate', 'init', 'users', 'workspaces', 'members', 'articles']) expect(help.stdout).toMatch(new RegExp(`\\n  ${cmd}\\b`));
    expectCleanError(await box.spawn(['bogus']), 2, "error: unknown command 'bogus'");
    expectCleanError(await box.spawn(['users', 'list', '--frobnicate']), 2, "error: unknown option '--frobnicate'");
  });

  it('an operator session: init, add a user and member, import, list, all scriptable', async () => {
    const box = await sandbox();
    const init = await box.spawn(['init', '--email', 'owner@example.com', '--password', 'owner-password', '--website', 'https://example.com', '--json']);
    expect(init.code).toBe(0);
    expect(init.json().workspace.id).toMatch(/^ws_/);

    const user = await box.spawn(['users', 'add', '--email', 'ed@example.com', '--password', 'editor-password', '--json']);
    expect(user.json().id).toMatch(/^usr_/);
    expect((await box.spawn(['members', 'add', '--email', 'ed@example.com', '--role', 'viewer', '--json'])).json()).toMatchObject({ role: 'viewer' });
    expect((await box.spawn(['workspaces', 'set', '--auto-publish', 'off', '--allowance', 'articles=3', '--json'])).json()).toMatchObject({ allowances: { articles: 3 } });

    writeFileSync(path.join(box.dir, 'one.md'), '---\ntitle: One\n---\nBody one\n');
    writeFileSync(path.join(box.dir, 'two.md'), '---\ntitle: Two\nkeywords: [a, b]\n---\nBody two\n');
    const imported = await box.spawn(['articles', 'import', 'one.md', 'two.md', '--json']);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toBe(''); // no progress bar without a terminal
    expect(imported.json().imported.map((a: { slug: string }) => a.slug)).toEqual(['one', 'two']);
    const list = await box.spawn(['articles', 'list', '--json']);
    expect(list.json().total).toBe(2);
    expect((await box.spawn(['workspaces', 'show', '--json'])).json().members).toHaveLength(2);
  });

  it('bad input: a message on stderr, nothing on stdout, exit 1; destructive commands need --yes', async () => {
    const box = await sandbox();
    expectCleanError(await box.spawn(['workspaces', 'add', '--name', 'x', '--website', 'not-a-url']), 1, 'error: Invalid workspace: websiteUrl: website must be an http(s) URL');
    expectCleanError(await box.spawn(['users', 'add', '--email', 'bad', '--password', 'long-enough']), 1, 'not a valid email address');
    expectCleanError(await box.spawn(['articles', 'list', '-w', 'nope.example']), 1, 'error: Workspace "nope.example" not found');
    await box.spawn(['users', 'add', '--email', 'a@example.com', '--password', 'long-enough']);
    const refused = await box.spawn(['users', 'remove', '--email', 'a@example.com']);
    expectCleanError(refused, 2, 'Refusing without --yes');
    expect(refused.stdout).toBe('');
    expect((await box.spawn(['users', 'remove', '--email', 'a@example.com', '--yes'])).code).toBe(0);
    writeFileSync(path.join(box.dir, 'bad.md'), '---\ntitle: [\n---\n');
    await box.spawn(['workspaces', 'add', '--website', 'https://example.com']);
    expectCleanError(await box.spawn(['articles', 'import', 'bad.md']), 1, 'bad.md: the front matter is not valid YAML');
  });

  it('bad configuration: every problem named, exit 1, no stack trace', async () => {
    const box = await sandbox();
    writeFileSync(path.join(box.dir, 'config.yaml'), 'server:\n  port: 99999\n  colour: blue\n');
    const r = await box.spawn(['users', 'list'], { env: { SVC_LOG_LEVEL: 'chatty', SVC_CONFIG: 'config.yaml' } });
    expectCleanError(r, 1, 'error: Invalid configuration:\n');
    expect(r.stderr).toContain('config.yaml: server.port: must be at most 65535');
    expect(r.stderr).toContain('config.yaml: server: unknown key "colour"');
    expect(r.stderr).toContain('SVC_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, not "chatty"');
    expectCleanError(await box.spawn(['--config', 'nope.yaml', 'users', 'list']), 1, `error: Config file not found: ${path.join(box.dir, 'nope.yaml')}`);
    expectCleanError(await box.spawn(['users', 'list'], { env: { SVC_CONFIG: 'nope.yaml' } }), 1, 'error: Config file not found');
  });

  it('a command loads only what it runs: --version no database or settings; a listing no HTTP, MCP, Redis, markdown or prompts', async () => {
    const box = await initialised();
    let runs = 0;
    const packagesOf = async (args: string[]) => {
      const log = path.join(box.dir, `loads-${runs++}.txt`);
      const r = await box.spawn(args, { env: { NODE_OPTIONS: `--import ${RECORD_LOADS}`, SVC_TEST_LOADS: log } });
      expect(r.code, r.stderr).toBe(0);
      return new Set([...readFileSync(log, 'utf8').matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]));
    };
    const version = await packagesOf(['--version']);
    expect(version).toContain('commander'); // the hook saw the packages it loaded
    for (const name of ['knex', 'pg', 'sqlite3', 'yaml', 'zod', 'ioredis', 'prom-client', 'koa', '@modelcontextprotocol/sdk', 'marked', 'sanitize-html']) expect(version, `svc --version loads ${name}`).not.toContain(name);
    const list = await packagesOf(['workspaces', 'list']);
    expect(list).toContain('knex');
    // No config file here (the settings come from the environment), and SQLite unless the suite runs on PostgreSQL.
    const unused = ['ioredis', 'koa', '@koa/router', '@modelcontextprotocol/sdk', 'marked', 'sanitize-html', 'csv-parse', 'turndown', 'prompts', 'yaml', ...(box.env.SVC_DATABASE_URL ? [] : ['pg'])];
    for (const name of unused) expect(list, `svc workspaces list loads ${name}`).not.toContain(name);
  });
});
