import { writeFileSync } from 'node:fs';
import path from 'node:path';
import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { serve } from '../helpers/serve.js';
import { expectCleanError, sandbox } from './sandbox.js';

describe('svc init', () => {
  it('creates the first user as admin of the first workspace (--json prints both with ids)', async () => {
    const box = await sandbox();
    const r = await box.cli(['init', '--email', 'Owner@Example.com', '--password', 'owner-password', '--website', 'https://example.com', '--name', 'Olga', '--json']);
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.user).toMatchObject({ id: expect.stringMatching(/^usr_/), email: 'owner@example.com', displayName: 'Olga' });
    expect(out.workspace).toMatchObject({ id: expect.stringMatching(/^ws_/), name: 'example.com', websiteUrl: 'https://example.com', contentPath: '/blog' });
    expect(out.role).toBe('admin');
    expect(JSON.stringify(out)).not.toContain('owner-password');
    const members = await box.json(['members', 'list']);
    expect(members).toEqual([expect.objectContaining({ email: 'owner@example.com', role: 'admin', userId: out.user.id })]);
  });

  it('stores the password only as an scrypt hash', async () => {
    const box = await sandbox();
    await box.json(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://example.com']);
    const app = await box.app();
    const row = await app.db('users').where({ email: 'a@example.com' }).first();
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{86}==$/);
    expect(JSON.stringify(row)).not.toContain('owner-password');
  });

  it('takes the workspace name from --workspace, and prints next steps for people', async () => {
    const box = await sandbox();
    const r = await box.cli(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://www.example.org', '--workspace', 'Example Org']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Created user a@example\.com \(usr_\w+\)\nCreated workspace Example Org \(ws_\w+\) with a@example\.com as admin/);
    // Where it wrote, and what chose it: later commands must find the same database.
    const database = box.env.SVC_DATABASE_URL ? box.env.SVC_DATABASE_URL.replace(/:[^:@/]+@/, ':***@') : `${box.dir}/svc.sqlite`;
    expect(r.stdout).toContain(`\nDatabase: ${database} (no config file; svc looks for one at --config, SVC_CONFIG, /etc/svc/config.yaml, ./config.yaml: run svc serve and later commands with the same settings)\n`);
    const file = path.join(box.dir, 'svc.yaml');
    writeFileSync(file, 'server: { port: 9999 }\n');
    const another = await box.cli(['init', '--another', '--email', 'b@example.com', '--password', 'owner-password', '--website', 'https://b.example'], { env: { SVC_CONFIG: file } });
    expect(another.stdout).toContain(`\nDatabase: ${database} (config file ${file})\n`);
    expect(r.stdout).toContain('svc articles import');
  });

  it('without a terminal, asks for the missing flag instead of prompting (exit 2)', async () => {
    const box = await sandbox();
    const r = await box.cli(['init', '--email', 'a@example.com', '--website', 'https://example.com']);
    expectCleanError(r, 2, 'error: Missing --password\nhint: Pass --password (there is no terminal to ask on).');
    expect(r.stdout).toBe('');
  });

  it('on a terminal, prompts for what is missing', async () => {
    const box = await sandbox();
    prompts.inject(['me@example.com', 'a-long-password', 'a-long-password', 'https://blog.example.net', 'blog.example.net']);
    const r = await box.cli(['init', '--json'], { interactive: true });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ user: { email: 'me@example.com' }, workspace: { name: 'blog.example.net', websiteUrl: 'https://blog.example.net' } });
  });

  it('bad email or website: a clear message and nothing half-made', async () => {
    const box = await sandbox();
    expectCleanError(await box.cli(['init', '--email', 'not-an-email', '--password', 'owner-password', '--website', 'https://example.com']), 1, 'error: Invalid user: email: not a valid email address');
    expectCleanError(await box.cli(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'example dot com', '--workspace', 'x']), 1, 'website must be an http(s) URL');
    expectCleanError(await box.cli(['init', '--email', 'a@example.com', '--password', 'short', '--website', 'https://example.com']), 1, 'passwords need at least 8 characters');
    expect(await box.json(['users', 'list'])).toEqual([]);
    expect(await box.json(['workspaces', 'list'])).toEqual([]);
  });

  it('run again: refused naming the workspace that exists (exit 2), unless --another; then the hints name --workspace', async () => {
    const box = await sandbox();
    await box.json(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://a.example']);
    const refused = await box.spawn(['init', '--email', 'b@example.com', '--password', 'owner-password', '--website', 'https://b.example']);
    expectCleanError(refused, 2, 'error: svc init already ran: workspace a.example exists. Refusing to add another workspace and user without --another.');
    expect(refused.stdout).toBe('');
    expect((await box.json(['users', 'list'])).map((u: { email: string }) => u.email)).toEqual(['a@example.com']);
    const r = await box.spawn(['init', '--another', '--email', 'b@example.com', '--password', 'owner-password', '--website', 'https://b.example']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Next: svc blog-key generate --workspace b.example');
    expect(r.stdout).toContain('svc articles import --workspace b.example posts/*.md');
    expect((await box.json(['workspaces', 'list'])).map((w: { name: string }) => w.name)).toEqual(['a.example', 'b.example']);
    expectCleanError(await box.cli(['init', '--another', '--email', 'b@example.com', '--password', 'owner-password', '--website', 'https://c.example']), 1, 'A user with email b@example.com already exists');
  }, 120_000);

  it('the first init prints hints without --workspace', async () => {
    const box = await sandbox();
    const r = await box.spawn(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://a.example']);
    expect(r.stdout).toContain('Next: svc blog-key generate   (content API key for your blog)');
    expect(r.stdout).not.toContain('--workspace');
  });

  it('run again on a terminal: asks, naming the workspace; no adds nothing', async () => {
    const box = await sandbox();
    await box.json(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://a.example']);
    prompts.inject([false]);
    const r = await box.cli(['init'], { interactive: true });
    expectCleanError(r, 2, 'error: Cancelled');
    expect(await box.json(['workspaces', 'list'])).toHaveLength(1);
    prompts.inject([true, 'b@example.com', 'owner-password', 'owner-password', 'https://b.example', 'b.example']);
    expect((await box.cli(['init', '--json'], { interactive: true })).json().workspace.name).toBe('b.example');
  });

  it('on a terminal the password is checked for length and asked twice; too short or different: asked again', async () => {
    const box = await sandbox();
    prompts.inject(['me@example.com', 'short', 'a-long-password', 'a-long-pasword', 'a-long-password', 'a-long-password', 'https://example.net', 'example.net']);
    const r = await box.cli(['init', '--json'], { interactive: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Passwords need at least 8 characters; this one has 5.');
    expect(r.stderr).toContain('The two passwords differ.');
    const app = await box.app();
    const { authenticate } = await import('../../src/workspaces/users.js');
    expect(await authenticate(app, 'me@example.com', 'a-long-password')).toBeTruthy();
  });

  it('on a terminal, three wrong tries: nothing made, exit 2', async () => {
    const box = await sandbox();
    prompts.inject(['me@example.com', 'short', 'tiny', 'a-long-password', 'another-password']);
    const r = await box.cli(['init'], { interactive: true });
    expectCleanError(r, 2, 'error: No password chosen after 3 tries');
    expect(await box.json(['users', 'list'])).toEqual([]);
  });
});

describe('svc init with a taken workspace name', () => {
  it('refuses before creating the user', async () => {
    const box = await sandbox();
    await box.json(['init', '--email', 'a@example.com', '--password', 'owner-password', '--website', 'https://a.example']);
    expectCleanError(await box.cli(['init', '--another', '--email', 'b@example.com', '--password', 'owner-password', '--website', 'https://a.example']), 1, 'error: A workspace named "a.example" already exists');
    expect((await box.json(['users', 'list'])).map((u: { email: string }) => u.email)).toEqual(['a@example.com']);
  });

  it('with a daemon already serving this database, the next steps say it does instead of svc serve', async () => {
    const box = await sandbox();
    const daemon = await serve({ ...box.env, SVC_BASE_URL: 'https://svc.example.org' }, box.dir);
    try {
      const r = await box.cli(['init', '--email', 'a@example.com', '--password', 'long-enough', '--website', 'https://example.com']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('      svc serve');
      expect(r.stdout).toContain(`      (no svc serve needed: the daemon with pid ${daemon.child.pid} already serves this database at https://svc.example.org)`);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    // Without one: svc serve.
    const other = await sandbox();
    expect((await other.cli(['init', '--email', 'a@example.com', '--password', 'long-enough', '--website', 'https://example.com'])).stdout).toContain('\n      svc serve\n');
  }, 60_000);
});
