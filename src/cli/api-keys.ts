import type { Command } from 'commander';
import { createApiKey, listApiKeys, revokeApiKey } from '../auth/api-keys.js';
import { SCOPES } from '../auth/scopes.js';
import { AppError } from '../errors.js';
import { listMembers } from '../workspaces/members.js';
import { withArticle } from '../workspaces/roles.js';
import type { Workspace } from '../workspaces/types.js';
import type { App } from '../app.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, servedBaseUrl, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';

export function registerApiKeys(program: Command, io: Io): void {
  const keys = program.command('api-keys').alias('api-key').description('API keys for AI agents (MCP, sent as Authorization: Bearer <key>)');

  keys
    .command('create')
    .description('create an API key; it acts for a workspace admin and is printed once')
    .option(...WORKSPACE_OPTION)
    .requiredOption('--name <name>', 'what the key is for, e.g. "claude-desktop"')
    .requiredOption('--scopes <list>', `comma separated: ${SCOPES.join(', ')}`)
    .option('--user <email>', 'the admin the key acts for (default: the workspace admin, when there is one)')
    .action(
      act<{ workspace?: string; name: string; scopes: string; user?: string }>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const admin = await actingAdmin(app, ws, opts.user);
        const key = await createApiKey(app, { workspaceId: ws.id, userId: admin.userId, name: opts.name, scopes: opts.scopes });
        const endpoint = `${servedBaseUrl(app.config, out)}/api/mcp`;
        out.result({ ...key, workspaceId: ws.id, user: admin.email, endpoint }, () =>
          [
            `Created API key ${key.name} (${key.id}) for ${ws.name}, acting for ${admin.email}, scopes ${key.scopes.join(', ')}.`,
            '',
            `  ${key.key}`,
            '',
            'Copy it now: it is not stored and cannot be shown again.',
            `Send it as "Authorization: Bearer <key>" to ${endpoint}`,
          ].join('\n'),
        );
      }),
    );

  keys
    .command('list')
    .description('list the API keys of a workspace (never the key values)')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, out, workspace }) => {
        const ws = await workspace();
        const all = await listApiKeys(app, ws.id);
        const members = new Map((await listMembers(app, ws.id)).map((m) => [m.userId, m.email]));
        const rows = all.map((k) => ({ ...k, user: members.get(k.userId) ?? '(no longer a member)', lastUsedAt: k.lastUsedAt ?? 'never' }));
        out.result(rows, () => table(rows, ['id', 'name', 'scopes', 'user', 'createdAt', 'lastUsedAt']));
      }),
    );

  keys
    .command('revoke')
    .description('revoke an API key: calls made with it are refused at once')
    .argument('<id>', 'key id (from api-keys list)')
    .option(...WORKSPACE_OPTION)
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; yes?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        const current = (await listApiKeys(app, ws.id)).find((k) => k.id === args[0]);
        await confirm(io, opts.yes, `Revoke API key ${current ? `${current.name} (${args[0]})` : args[0]}?`);
        const key = await revokeApiKey(app, ws.id, args[0]);
        out.result({ id: key.id, name: key.name, revoked: true }, () => `Revoked API key ${key.name} (${key.id})`);
      }),
    );
}

/** --user must name an admin; without it, the workspace's only admin (or the first one). */
async function actingAdmin(app: App, ws: Workspace, email: string | undefined): Promise<{ userId: string; email: string }> {
  const members = await listMembers(app, ws.id);
  if (email) {
    const m = members.find((x) => x.email === email.trim().toLowerCase());
    if (!m) throw new AppError('not_member', 400, `${email} is not a member of ${ws.name}`, { hint: `Add them first: svc members add --workspace ${ws.name} --email ${email} --role admin` });
    if (m.role !== 'admin') throw new AppError('forbidden', 403, `${email} is ${withArticle(m.role)} of ${ws.name}; only an admin can own an API key`);
    return m;
  }
  const admin = members.find((m) => m.role === 'admin');
  if (!admin) throw new AppError('no_admin', 400, `${ws.name} has no admin for the key to act for`, { hint: `Make someone admin first: svc members add --workspace ${ws.name} --email EMAIL --role admin` });
  return admin;
}
