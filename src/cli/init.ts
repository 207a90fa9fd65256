import type { Command } from 'commander';
import { addMember } from '../accounts/members.js';
import { assertUniqueName, createWorkspace, listWorkspaces } from '../workspaces/service.js';
import { createUser, userCreateInput } from '../workspaces/users.js';
import { workspaceCreateInput } from '../workspaces/inputs.js';
import { parseInput } from '../lib/validate.js';
import type { Workspace } from '../workspaces/types.js';
import { usageError } from '../errors.js';
import { askNewPassword, askText, confirm } from './ask.js';
import { act, CONFIG_SEARCH, daemonsServing } from './harness.js';
import { mayCreateDatabase } from './may-create.js';
import { redact } from '../backup/copy-to-postgres.js';
import type { Config } from '../config/schema.js';
import type { Io } from './io.js';

interface InitOptions {
  email?: string;
  password?: string;
  name?: string;
  workspace?: string;
  website?: string;
  another?: boolean;
}

const MIN_PASSWORD = 8;

export function registerInit(program: Command, io: Io): void {
  mayCreateDatabase(program.command('init'))
    .description('first run: create the first user (as admin) and the first workspace')
    .option('--email <email>', 'email of the first user')
    .option('--password <password>', 'password of the first user (asked for on a terminal)')
    .option('--name <name>', 'display name of the first user')
    .option('--workspace <name>', 'workspace name, usually the site domain (e.g. example.com)')
    .option('--website <url>', 'the site the workspace tracks (e.g. https://example.com)')
    .option('--another', 'init already ran: add one more workspace and user anyway (asked on a terminal)')
    .action(
      act<InitOptions>(io, async ({ app, opts, out }) => {
        const existing = await listWorkspaces(app);
        if (existing.length > 0) await allowAnother(io, existing, opts.another);
        const email = await askText(io, opts.email, { flag: '--email', message: 'Your email' });
        const password = await askNewPassword(io, opts.password, { flag: '--password', message: `Choose a password (${MIN_PASSWORD}+ characters)`, minLength: MIN_PASSWORD });
        const website = await askText(io, opts.website, { flag: '--website', message: 'Website URL', initial: 'https://example.com' });
        const wsName = await askText(io, opts.workspace, { flag: '--workspace', message: 'Workspace name', initial: safeHost(website), fallback: safeHost(website) });
        // Validate both before creating either, so a typo leaves nothing half-made.
        parseInput(userCreateInput, { email, password, displayName: opts.name }, 'user');
        const wsInput = parseInput(workspaceCreateInput, { name: wsName, websiteUrl: website }, 'workspace');
        assertUniqueName(existing, wsInput.name);
        const user = await createUser(app, { email, password, displayName: opts.name });
        const workspace = await createWorkspace(app, { name: wsName, websiteUrl: website });
        await addMember(app, workspace.id, user.email, 'admin');
        // With several workspaces every workspace command needs --workspace: the hints say so.
        const w = existing.length > 0 ? ` --workspace ${shellWord(workspace.name)}` : '';
        out.result({ user, workspace, role: 'admin' }, () =>
          [
            `Created user ${user.email} (${user.id})`,
            `Created workspace ${workspace.name} (${workspace.id}) with ${user.email} as admin`,
            whereItLives(app.config),
            '',
            `Next: svc blog-key generate${w}   (content API key for your blog)`,
            `      svc articles import${w} posts/*.md`,
            nextServe(app.config),
          ].join('\n'),
        );
      }),
    );
}

/**
 * A second init used to add a workspace silently, after which every command without
 * --workspace failed: it is refused naming what exists, unless --another or a yes on a terminal.
 */
async function allowAnother(io: Io, existing: Workspace[], another: boolean | undefined): Promise<void> {
  const names = existing.map((w) => w.name).join(', ');
  const what = `svc init already ran: ${existing.length === 1 ? `workspace ${names} exists` : `workspaces ${names} exist`}.`;
  if (another) return;
  if (!io.interactive) {
    throw usageError(
      `${what} Refusing to add another workspace and user without --another.`,
      'Add a user with svc users add and svc members add; a workspace with svc workspaces add; or run init --another (every workspace command then needs --workspace).',
    );
  }
  await confirm(io, false, `${what} Add another workspace and user (every workspace command then needs --workspace)?`);
}

/** The name as one shell word in a printed hint. */
function shellWord(text: string): string {
  return /^[\w.@:/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * Where init wrote, and which config file chose it: the daemon and later commands find this
 * database only through the same config (run from another directory without one, they would not).
 */
function whereItLives(config: Config): string {
  const database = config.database.client === 'pg' ? redact(config.database.url!) : config.database.filename;
  return config.source
    ? `Database: ${database} (config file ${config.source})`
    : `Database: ${database} (no config file; svc looks for one at ${CONFIG_SEARCH}: run svc serve and later commands with the same settings)`;
}

/** `svc serve`, unless a daemon of this machine already serves this database: then that it does, and where. */
function nextServe(config: Config): string {
  const daemon = daemonsServing(config)[0];
  if (!daemon) return '      svc serve';
  return `      (no svc serve needed: the daemon with pid ${daemon.pid} already serves this database${daemon.served ? ` at ${daemon.served.baseUrl}` : ''})`;
}
