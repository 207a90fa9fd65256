import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { runCli } from '../helpers/cli.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect, rpc, toolCall } from './helpers.js';

describe('svc api-keys', () => {
  it('creates a key shown once, lists it without the value, and the key works on /api/mcp', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const admin = await seedUser(d.app, ws, 'admin');
    const cli = (...args: string[]) => runCli(args, { env: d.env, cwd: d.dir });

    const created = await cli('api-keys', 'create', '--workspace', ws.name, '--name', 'claude', '--scopes', 'read,content');
    expect(created.code).toBe(0);
    const key = /\b(svc_api_[0-9A-Za-z]{40})\b/.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    expect(created.stdout).toContain(`acting for ${admin.email}, scopes read, content`);
    expect(created.stdout).toContain('it is not stored and cannot be shown again');

    const listed = await cli('api-keys', 'list', '--workspace', ws.name);
    expect(listed.stdout).toMatch(/NAME\s+SCOPES\s+USER\s+CREATED AT\s+LAST USED/);
    expect(listed.stdout).toContain('never');
    expect(listed.stdout).not.toContain(key!);

    const agent = await connect(d, key!);
    expect((await agent.call('get_site_profile')).text).toMatch(/Scopes: read, content$/);
    const json = (await cli('api-keys', 'list', '--workspace', ws.name, '--json')).json<Array<Record<string, unknown>>>();
    expect(json).toEqual([expect.objectContaining({ name: 'claude', scopes: ['read', 'content'], user: admin.email, lastUsedAt: expect.stringMatching(/^\d{4}-/) })]);
    expect(JSON.stringify(json)).not.toContain(key!);

    // Only the sha256 of the key is stored.
    const rows = await d.app.db('api_keys').select('*');
    expect(JSON.stringify(rows)).not.toContain(key!);
  });

  it('refuses unknown scopes, a missing name, a non-admin --user, and revoking without --yes', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    await seedUser(d.app, ws, 'admin');
    const editor = await seedUser(d.app, ws, 'editor');
    const cli = (...args: string[]) => runCli(args, { env: d.env, cwd: d.dir });

    const badScope = await cli('api-keys', 'create', '--name', 'x', '--scopes', 'read,admin');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('unknown scope "admin"; allowed values are read, content, publish');
    const noName = await cli('api-keys', 'create', '--name', '  ', '--scopes', 'read');
    expect(noName.code).toBe(1);
    expect(noName.stderr).toContain('name is required');
    const notAdmin = await cli('api-keys', 'create', '--name', 'x', '--scopes', 'read', '--user', editor.email);
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toContain(`${editor.email} is an editor of ${ws.name}; only an admin can own an API key`);

    const made = (await cli('api-keys', 'create', '--name', 'ci', '--scopes', 'publish,read', '--json')).json<{ id: string; key: string; scopes: string[] }>();
    expect(made.scopes).toEqual(['read', 'publish']);
    const noYes = await cli('api-keys', 'revoke', made.id);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('Refusing without --yes');
    expect((await rpc(d, toolCall('get_site_profile'), { Authorization: `Bearer ${made.key}` })).status).toBe(200);
    expect((await cli('api-keys', 'revoke', made.id, '--yes')).stdout).toBe(`Revoked API key ci (${made.id})\n`);
    expect((await rpc(d, toolCall('get_site_profile'), { Authorization: `Bearer ${made.key}` })).status).toBe(401);
    const twice = await cli('api-keys', 'revoke', made.id, '--yes');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`API key "${made.id}" not found`);
    expect((await cli('api-keys', 'list', '--workspace', ws.name)).stdout).toBe('(none)\n');

    const empty = await seedWorkspace(d.app);
    const noAdmin = await cli('api-keys', 'create', '--workspace', empty.name, '--name', 'x', '--scopes', 'read');
    expect(noAdmin.code).toBe(1);
    expect(noAdmin.stderr).toContain(`${empty.name} has no admin for the key to act for`);
  });
});
