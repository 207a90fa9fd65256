import type { Command } from 'commander';
import { changePassword, removeUser } from '../accounts/users.js';
import { createUser, listUsers } from '../workspaces/users.js';
import { askText, confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act } from './harness.js';
import { mayCreateDatabase } from './may-create.js';
import { type Io, table } from './io.js';

export function registerUsers(program: Command, io: Io): void {
  const users = program.command('users').description('manage user accounts (people who log in and own connections)');

  mayCreateDatabase(users.command('add'))
    .description('create a user')
    .option('--email <email>', 'email address (login name)')
    .option('--password <password>', 'password, 8+ characters (asked for on a terminal)')
    .option('--name <name>', 'display name')
    .action(
      act<{ email?: string; password?: string; name?: string }>(io, async ({ app, opts, out }) => {
        const email = await askText(io, opts.email, { flag: '--email', message: 'Email' });
        const password = await askText(io, opts.password, { flag: '--password', message: 'Password (8+ characters)', secret: true });
        const user = await createUser(app, { email, password, displayName: opts.name });
        out.result(user, () => `Created user ${user.email} (${user.id})`);
      }),
    );

  users
    .command('list')
    .description('list users')
    .action(
      act(io, async ({ app, out }) => {
        const all = await listUsers(app);
        out.result(all, () => table(all, ['id', 'email', 'displayName', 'createdAt']));
      }),
    );

  users
    .command('passwd')
    .description("set a user's password; signs them out of every browser session")
    .requiredOption('--email <email>', 'the user')
    .option('--password <password>', 'new password (asked for on a terminal)')
    .option('--revoke-connections', 'also revoke their agent (OAuth) connections: each app must be approved again')
    .action(
      act<{ email: string; password?: string; revokeConnections?: boolean }>(io, async ({ app, opts, out }) => {
        const password = await askText(io, opts.password, { flag: '--password', message: 'New password (8+ characters)', secret: true });
        const done = await changePassword(app, opts.email, password, { revokeConnections: opts.revokeConnections });
        const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
        out.result({ ...done.user, sessionsEnded: done.sessionsEnded, connectionsRevoked: done.connectionsRevoked }, () =>
          [
            `Password changed for ${done.user.email}`,
            `Signed out of ${plural(done.sessionsEnded, 'browser session')}`,
            ...(opts.revokeConnections ? [`Revoked ${plural(done.connectionsRevoked, 'agent connection')}`] : []),
          ].join('\n'),
        );
      }),
    );

  users
    .command('remove')
    .description('delete a user with their memberships, API keys, sessions and agent connections (refused for the last admin of a workspace)')
    .requiredOption('--email <email>', 'the user')
    .option(...YES_OPTION)
    .action(
      act<{ email: string; yes?: boolean }>(io, async ({ app, opts, out }) => {
        await confirm(io, opts.yes, `Delete user ${opts.email} with their API keys, sessions and agent connections?`);
        const user = await removeUser(app, opts.email);
        out.result(user, () => `Removed user ${user.email}: their memberships, API keys, sessions and agent connections are deleted`);
      }),
    );
}
