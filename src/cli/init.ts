import type { Command } from 'commander';
import { addMember } from '../accounts/members.js';
import { assertUniqueName, createWorkspace, listWorkspaces } from '../workspaces/service.js';
import { createUser, userCreateInput } from '../workspaces/users.js';
import { workspaceCreateInput } from '../workspaces/inputs.js';
import { parseInput } from '../lib/validate.js';
import { askText } from './ask.js';
import { act } from './harness.js';
import type { Io } from './io.js';

interface InitOptions {
  email?: string;
  password?: string;
  name?: string;
  workspace?: string;
  website?: string;
}

export function registerInit(program: Command, io: Io): void {
  program
    .command('init')
    .description('first run: create the first user (as admin) and the first workspace')
    .option('--email <email>', 'email of the first user')
    .option('--password <password>', 'password of the first user (asked for on a terminal)')
    .option('--name <name>', 'display name of the first user')
    .option('--workspace <name>', 'workspace name, usually the site domain (e.g. example.com)')
    .option('--website <url>', 'the site the workspace tracks (e.g. https://example.com)')
    .action(
      act<InitOptions>(io, async ({ app, opts, out }) => {
        const existing = await listWorkspaces(app);
        if (existing.length > 0) {
          out.note('Note: workspaces already exist; init adds one more workspace and user.');
        }
        const email = await askText(io, opts.email, { flag: '--email', message: 'Your email' });
        const password = await askText(io, opts.password, { flag: '--password', message: 'Choose a password (8+ characters)', secret: true });
        const website = await askText(io, opts.website, { flag: '--website', message: 'Website URL', initial: 'https://example.com' });
        const wsName = await askText(io, opts.workspace, { flag: '--workspace', message: 'Workspace name', initial: safeHost(website), fallback: safeHost(website) });
        // Validate both before creating either, so a typo leaves nothing half-made.
        parseInput(userCreateInput, { email, password, displayName: opts.name }, 'user');
        const wsInput = parseInput(workspaceCreateInput, { name: wsName, websiteUrl: website }, 'workspace');
        assertUniqueName(existing, wsInput.name);
        const user = await createUser(app, { email, password, displayName: opts.name });
        const workspace = await createWorkspace(app, { name: wsName, websiteUrl: website });
        await addMember(app, workspace.id, user.email, 'admin');
        out.result({ user, workspace, role: 'admin' }, () =>
          [
            `Created user ${user.email} (${user.id})`,
            `Created workspace ${workspace.name} (${workspace.id}) with ${user.email} as admin`,
            '',
            'Next: svc blog-key generate   (content API key for your blog)',
            '      svc articles import posts/*.md',
            '      svc serve',
          ].join('\n'),
        );
      }),
    );
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
