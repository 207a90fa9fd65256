import type { Command } from 'commander';
import { createUser, listUsers, removeUser, setPassword } from '../workspaces/users.js';
import { askText, confirm } from './ask.js';
import { act } from './harness.js';
import { type Io, table } from './io.js';

export function registerUsers(program: Command, io: Io): void {
  const users = program.command('users').description('manage user accounts (people who log in and own connections)');

  users
    .command('add')
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
    .description("set a user's password")
    .requiredOption('--email <email>', 'the user')
    .option('--password <password>', 'new password (asked for on a terminal)')
    .action(
      act<{ email: string; password?: string }>(io, async ({ app, opts, out }) => {
        const password = await askText(io, opts.password, { flag: '--password', message: 'New password (8+ characters)', secret: true });
        const user = await setPassword(app, opts.email, password);
        out.result(user, () => `Password changed for ${user.email}`);
      }),
    );

  users
    .command('remove')
    .description('delete a user, their memberships and their agent connections')
    .requiredOption('--email <email>', 'the user')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      act<{ email: string; yes?: boolean }>(io, async ({ app, opts, out }) => {
        await confirm(io, opts.yes, `Delete user ${opts.email}?`);
        const user = await removeUser(app, opts.email);
        out.result(user, () => `Removed user ${user.email}`);
      }),
    );
}
