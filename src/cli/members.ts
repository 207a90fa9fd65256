import type { Command } from 'commander';
import { addMember, removeMember, setMemberRole } from '../accounts/members.js';
import { usageError } from '../errors.js';
import { listMembers, parseRole } from '../workspaces/members.js';
import type { Role } from '../workspaces/roles.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';

type MemberOptions = { workspace?: string; email: string; role?: string; yes?: boolean };

export function registerMembers(program: Command, io: Io): void {
  const members = program.command('members').description("manage who belongs to a workspace and their role (admin, editor, viewer)");

  members
    .command('add')
    .description('add a user to a workspace')
    .option(...WORKSPACE_OPTION)
    .requiredOption('--email <email>', 'the user (create it first with svc users add)')
    .option('--role <role>', 'admin | editor | viewer', 'editor')
    .action(
      act<MemberOptions>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const m = await addMember(app, ws.id, opts.email, roleOption(opts.role ?? 'editor'));
        out.result(m, () => `${m.email} is now ${m.role} of ${ws.name}`);
      }),
    );

  members
    .command('list')
    .description('list the members of a workspace')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, out, workspace }) => {
        const ws = await workspace();
        const all = await listMembers(app, ws.id);
        out.result(all, () => table(all, ['email', 'role', 'userId', 'createdAt']));
      }),
    );

  members
    .command('set-role')
    .description("change a member's role")
    .option(...WORKSPACE_OPTION)
    .requiredOption('--email <email>', 'the member')
    .requiredOption('--role <role>', 'admin | editor | viewer')
    .action(
      act<MemberOptions>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        const m = await setMemberRole(app, ws.id, opts.email, roleOption(opts.role!));
        out.result(m, () => `${m.email} is now ${m.role} of ${ws.name}`);
      }),
    );

  members
    .command('remove')
    .description('remove a member from a workspace (their agent connections stop working at once)')
    .option(...WORKSPACE_OPTION)
    .requiredOption('--email <email>', 'the member')
    .option(...YES_OPTION)
    .action(
      act<MemberOptions>(io, async ({ app, opts, out, workspace }) => {
        const ws = await workspace();
        await confirm(io, opts.yes, `Remove ${opts.email} from ${ws.name}?`);
        const m = await removeMember(app, ws.id, opts.email);
        out.result(m, () => `Removed ${m.email} from ${ws.name}`);
      }),
    );
}

/** `--role`: an unknown role is a usage mistake (exit 2) like any bad flag value, in the domain's words. */
function roleOption(value: string): Role {
  try {
    return parseRole(value);
  } catch (err) {
    throw usageError((err as Error).message);
  }
}
