import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { expectCleanError, initialised } from './sandbox.js';

describe('svc members', () => {
  it('add (editor by default), list, set-role, remove', async () => {
    const box = await initialised();
    const user = await box.json(['users', 'add', '--email', 'ed@example.com', '--password', 'editor-password']);
    const added = await box.json(['members', 'add', '--workspace', box.workspace.name, '--email', 'ed@example.com']);
    expect(added).toMatchObject({ workspaceId: box.workspace.id, userId: user.id, email: 'ed@example.com', role: 'editor' });

    const human = await box.cli(['members', 'add', '-w', box.workspace.id, '--email', 'ed@example.com', '--role', 'viewer']);
    expect(human.stdout).toBe(`ed@example.com is now viewer of ${box.workspace.name}\n`);

    expect((await box.json(['members', 'list'])).map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'admin'],
      ['ed@example.com', 'viewer'],
    ]);
    expect(await box.json(['members', 'set-role', '--email', 'ed@example.com', '--role', 'admin'])).toMatchObject({ role: 'admin' });
    expect(await box.json(['members', 'remove', '--email', 'ed@example.com', '--yes'])).toMatchObject({ email: 'ed@example.com', role: 'admin' });
    expect(await box.json(['members', 'list'])).toHaveLength(1);
  });

  it('refuses bad input with a clear message', async () => {
    const box = await initialised();
    expectCleanError(await box.cli(['members', 'add', '--email', 'owner@example.com', '--role', 'boss']), 2, 'error: Unknown role "boss": use admin, editor or viewer');
    expectCleanError(await box.cli(['members', 'set-role', '--email', 'owner@example.com', '--role', 'Admin']), 2, 'error: Unknown role "Admin": use admin, editor or viewer');
    expectCleanError(await box.cli(['members', 'add', '--email', 'ghost@example.com']), 1, 'error: User "ghost@example.com" not found');
    expectCleanError(await box.cli(['members', 'add', '--email', 'not an email']), 1, 'not a valid email address');
    expectCleanError(await box.cli(['members', 'add', '-w', 'nope.example', '--email', 'owner@example.com']), 1, 'error: Workspace "nope.example" not found\nhint: List workspaces with: svc workspaces list');
    expectCleanError(await box.cli(['members', 'add']), 2, "error: required option '--email <email>' not specified");
    expectCleanError(await box.cli(['members', 'set-role', '--email', 'owner@example.com']), 2, "required option '--role <role>' not specified");
    expectCleanError(await box.cli(['members', 'set-role', '--email', 'owner@example.com', '--role', 'editor']), 1, 'error: owner@example.com is the last admin of this workspace');
    expectCleanError(await box.cli(['members', 'add', '--email', 'owner@example.com', '--role', 'viewer']), 1, 'error: owner@example.com is the last admin of this workspace; make another member admin first\nhint: svc members set-role');
    expectCleanError(await box.cli(['members', 'remove', '--email', 'owner@example.com', '--yes']), 1, 'error: owner@example.com is the last admin of this workspace');
    expectCleanError(await box.cli(['users', 'remove', '--email', 'owner@example.com', '--yes']), 1, `error: owner@example.com is the last admin of workspace ${box.workspace.name}; make another member admin first`);
    await box.json(['users', 'add', '--email', 'out@example.com', '--password', 'long-enough']);
    expectCleanError(await box.cli(['members', 'set-role', '--email', 'out@example.com', '--role', 'editor']), 1, 'error: Membership "out@example.com" not found');
    expectCleanError(await box.cli(['members', 'remove', '--email', 'out@example.com', '--yes']), 1, 'error: Membership "out@example.com" not found');
  });

  it('needs --workspace when there are several workspaces', async () => {
    const box = await initialised();
    await box.json(['workspaces', 'add', '--name', 'second.example', '--website', 'https://second.example']);
    expectCleanError(await box.cli(['members', 'list']), 2, 'error: There are 2 workspaces: say which with --workspace ID|NAME\nhint: Workspaces: example.com, second.example');
    expect(await box.json(['members', 'list', '-w', 'second.example'])).toEqual([]);
  });

  it('remove confirms: --yes without a terminal, a prompt on one', async () => {
    const box = await initialised();
    await box.json(['users', 'add', '--email', 'ed@example.com', '--password', 'editor-password']);
    await box.json(['members', 'add', '--email', 'ed@example.com']);
    expectCleanError(await box.cli(['members', 'remove', '--email', 'ed@example.com']), 2, 'Refusing without --yes');
    prompts.inject([true]);
    const r = await box.cli(['members', 'remove', '--email', 'ed@example.com'], { interactive: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Removed ed@example.com from example.com\n');
  });
});
