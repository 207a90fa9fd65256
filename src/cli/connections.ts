import type { Command } from 'commander';
import { getUserByEmail } from '../workspaces/users.js';
import { resolveWorkspace } from '../workspaces/service.js';
import { getConnection, listConnections, revokeConnectionAs } from '../oauth/connections.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act } from './harness.js';
import { type Io, table } from './io.js';

/** `svc connections list|revoke`: the operator's view of agent (OAuth) connections. */
export function registerConnections(program: Command, io: Io): void {
  const connections = program.command('connections').alias('connection').description('list and revoke agent connections approved in the browser (OAuth)');

  connections
    .command('list')
    .description('list connections that are not revoked (expired ones are marked)')
    .option('-w, --workspace <id|name>', 'only this workspace')
    .option('--user <email>', 'only this user')
    .action(
      act<{ workspace?: string; user?: string }>(io, async ({ app, opts, out }) => {
        const workspaceId = opts.workspace ? (await resolveWorkspace(app, opts.workspace)).id : undefined;
        const userId = opts.user ? (await getUserByEmail(app, opts.user)).id : undefined;
        const all = await listConnections(app, { workspaceId, userId });
        const rows = all.map((c) => ({ id: c.id, client: c.client.name ?? c.client.id, workspace: c.workspace.name, user: c.user.email, scopes: c.scopes, status: c.status, lastUsedAt: c.lastUsedAt }));
        out.result(all, () => table(rows, ['id', 'client', 'workspace', 'user', 'scopes', 'status', 'lastUsedAt']));
      }),
    );

  connections
    .command('revoke')
    .description('revoke a connection: its tokens stop working at once; the app needs a new browser approval')
    .argument('<id>', 'connection id (see svc connections list)')
    .option(...YES_OPTION)
    .action(
      act<{ yes?: boolean }>(io, async ({ app, opts, args, out }) => {
        const [id] = args;
        const current = await getConnection(app, id);
        await confirm(io, opts.yes, `Revoke ${current.client.name ?? current.client.id} for ${current.user.email} in ${current.workspace.name}?`);
        const revoked = await revokeConnectionAs(app, id, { reason: 'operator' });
        out.result(revoked, () => `Revoked connection ${id} (${revoked.client.name ?? revoked.client.id}, ${revoked.workspace.name}, ${revoked.user.email})`);
      }),
    );
}
