import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/workspaces/users.js';
import { expectCleanError, initialised, sandbox } from './sandbox.js';

describe('svc users', () => {
  it('add, list, passwd, remove', async () => {
    const box = await sandbox({ migrated: true });
    const created = await box.json(['users', 'add', '--email', 'Ann@Example.com', '--password', 'first-password', '--name', 'Ann']);
    expect(created).toEqual({ id: expect.stringMatching(/^usr_/), email: 'ann@example.com', displayName: 'Ann', createdAt: expect.any(String) });

    const listed = await box.json(['users', 'list']);
    expect(listed).toEqual([created]);
    const human = await box.cli(['users', 'list']);
    expect(human.stdout).toMatch(/^ID\s+EMAIL\s+DISPLAY NAME\s+CREATED AT\nusr_\w+\s+ann@example\.com\s+Ann\s/);

    const row = async () => (await (await box.app()).db('users').where({ id: created.id }).first()).password_hash as string;
    const before = await row();
    expect(before).toMatch(/^scrypt\$/);
    expect(await box.json(['users', 'passwd', '--email', 'ann@example.com', '--password', 'second-password'])).toMatchObject({ id: created.id });
    const after = await row();
    expect(after).toMatch(/^scrypt\$/);
    expect(after).not.toBe(before);
    const app = await box.app();
    expect(await authenticate(app, 'ann@example.com', 'second-password')).toMatchObject({ id: created.id });
    expect(await authenticate(app, 'ann@example.com', 'first-password')).toBeUndefined();

    const removed = await box.cli(['users', 'remove', '--email', 'ann@example.com', '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('Removed user ann@example.com: their memberships, API keys, sessions and agent connections are deleted\n');
    expect(await box.json(['users', 'list'])).toEqual([]);
  });

  it('removing a user removes their memberships', async () => {
    const box = await initialised();
    await box.json(['users', 'add', '--email', 'ed@example.com', '--password', 'editor-password']);
    await box.json(['members', 'add', '--email', 'ed@example.com', '--role', 'editor']);
    await box.json(['users', 'remove', '--email', 'ed@example.com', '--yes']);
    expect((await box.json(['members', 'list'])).map((m: { email: string }) => m.email)).toEqual(['owner@example.com']);
  });

  it('refuses bad input with a clear message', async () => {
    const box = await sandbox({ migrated: true });
    expectCleanError(await box.cli(['users', 'add', '--email', 'nope', '--password', 'long-enough']), 1, 'error: Invalid user: email: not a valid email address');
    expectCleanError(await box.cli(['users', 'add', '--email', 'a@example.com', '--password', 'short']), 1, 'error: Invalid user: password: passwords need at least 8 characters');
    await box.json(['users', 'add', '--email', 'a@example.com', '--password', 'long-enough']);
    expectCleanError(await box.cli(['users', 'add', '--email', 'A@example.com', '--password', 'long-enough']), 1, 'error: A user with email a@example.com already exists');
    expectCleanError(await box.cli(['users', 'passwd', '--email', 'b@example.com', '--password', 'long-enough']), 1, 'error: User "b@example.com" not found');
    expectCleanError(await box.cli(['users', 'passwd', '--email', 'a@example.com', '--password', 'short']), 1, 'passwords need at least 8 characters');
    expectCleanError(await box.cli(['users', 'remove', '--email', 'b@example.com', '--yes']), 1, 'error: User "b@example.com" not found');
    expectCleanError(await box.cli(['users', 'remove', '--email', 'bad email', '--yes']), 1, 'not a valid email address');
  });

  it('missing flags without a terminal: exit 2 naming the flag', async () => {
    const box = await sandbox({ migrated: true });
    expectCleanError(await box.cli(['users', 'add', '--email', 'a@example.com']), 2, 'error: Missing --password');
    expectCleanError(await box.cli(['users', 'add', '--password', 'long-enough']), 2, 'error: Missing --email');
    expectCleanError(await box.cli(['users', 'passwd']), 2, "error: required option '--email <email>' not specified");
    expectCleanError(await box.cli(['users', 'passwd', '--email', 'a@example.com']), 2, 'error: Missing --password');
  });

  it('--json errors are JSON on stdout too', async () => {
    const box = await sandbox({ migrated: true });
    const r = await box.cli(['users', 'add', '--email', 'nope', '--password', 'long-enough', '--json']);
    expect(r.code).toBe(1);
    expect(r.json()).toEqual({ error: { code: 'invalid_input', message: 'Invalid user: email: not a valid email address', field: 'email' } });
    expect(r.stderr).toBe(''); // with --json nothing for people on stderr (issue 24)
  });

  it('remove needs --yes without a terminal, and asks on one', async () => {
    const box = await sandbox({ migrated: true });
    await box.json(['users', 'add', '--email', 'a@example.com', '--password', 'long-enough']);
    expectCleanError(await box.cli(['users', 'remove', '--email', 'a@example.com']), 2, 'error: Delete user a@example.com with their API keys, sessions and agent connections? Refusing without --yes (no terminal to confirm on).\nhint: Pass --yes to confirm.');
    prompts.inject([false]);
    expectCleanError(await box.cli(['users', 'remove', '--email', 'a@example.com'], { interactive: true }), 2, 'error: Cancelled');
    expect(await box.json(['users', 'list'])).toHaveLength(1);
    prompts.inject([true]);
    expect((await box.cli(['users', 'remove', '--email', 'a@example.com'], { interactive: true })).code).toBe(0);
    expect(await box.json(['users', 'list'])).toEqual([]);
  });

  it('prompts for the email and password on a terminal', async () => {
    const box = await sandbox({ migrated: true });
    prompts.inject(['typed@example.com', 'typed-password']);
    const r = await box.cli(['users', 'add', '--json'], { interactive: true });
    expect(r.code).toBe(0);
    expect(r.json().email).toBe('typed@example.com');
    prompts.inject(['new-typed-password']);
    expect((await box.cli(['users', 'passwd', '--email', 'typed@example.com'], { interactive: true })).code).toBe(0);
    expect(await authenticate(await box.app(), 'typed@example.com', 'new-typed-password')).toBeDefined();
  });
});

describe('CLI logging', () => {
  it('an empty SVC_LOG_LEVEL means the default, and a level asked for is used', async () => {
    const box = await sandbox();
    // The first command on a fresh database applies the migrations and logs that at info.
    const info = await box.cli(['workspaces', 'add', '--website', 'https://example.com'], { env: { SVC_LOG_LEVEL: 'info' } });
    expect(info.code).toBe(0);
    expect(info.stderr).toContain('"msg":"applied migrations"');
    expect(await box.cli(['users', 'list'], { env: { SVC_LOG_LEVEL: '' } })).toMatchObject({ code: 0, stderr: '' });
    expectCleanError(await box.cli(['users', 'list'], { env: { SVC_LOG_LEVEL: 'loud' } }), 1, 'SVC_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, not "loud"');
  });
});
