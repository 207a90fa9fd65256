import type { Command } from 'commander';
import { usageError } from '../errors.js';
import { keywordWhere } from '../keywords/inputs.js';
import { listConnectorsFor } from '../connectors/service.js';
import { getUsage } from '../workspaces/usage.js';
import { listMembers } from '../workspaces/members.js';
import { createWorkspace, listWorkspaces, resolveWorkspace, subscriptionLapsed, updateWorkspace } from '../workspaces/service.js';
import type { WorkspaceUpdateInput } from '../workspaces/inputs.js';
import { askText } from './ask.js';
import { act, WORKSPACE_OPTION } from './harness.js';
import { mayCreateDatabase } from './may-create.js';
import { type Io, table } from './io.js';

interface SetOptions {
  workspace?: string;
  name?: string;
  website?: string;
  siteUrl?: string;
  contentPath?: string;
  plan?: string;
  billingStatus?: string;
  graceUntil?: string;
  autoPublish?: string;
  allowance?: string;
  keywordLocation?: string;
  keywordLanguage?: string;
}

export function registerWorkspaces(program: Command, io: Io): void {
  const ws = program.command('workspaces').alias('workspace').description('manage workspaces (one per site)');

  mayCreateDatabase(ws.command('add'))
    .description('create a workspace')
    .option('--name <name>', 'name, usually the site domain (e.g. example.com)')
    .option('--website <url>', 'the site the workspace tracks')
    .option('--site-url <url>', 'where the blog is served, if not the website')
    .option('--content-path <path>', 'blog path under the site URL (default /blog)')
    .option('--plan <plan>', 'plan name (default free)')
    .action(
      act<{ name?: string; website?: string; siteUrl?: string; contentPath?: string; plan?: string }>(io, async ({ app, opts, out }) => {
        const website = await askText(io, opts.website, { flag: '--website', message: 'Website URL' });
        const name = await askText(io, opts.name, { flag: '--name', message: 'Workspace name', initial: hostOf(website), fallback: hostOf(website) });
        const created = await createWorkspace(app, { name, websiteUrl: website, siteUrl: opts.siteUrl, contentPath: opts.contentPath, plan: opts.plan });
        out.result(created, () => `Created workspace ${created.name} (${created.id})\nAdd people with: svc members add --workspace ${created.name} --email EMAIL --role admin`);
      }),
    );

  ws.command('list')
    .description('list workspaces')
    .action(
      act(io, async ({ app, out }) => {
        const all = await listWorkspaces(app);
        out.result(all, () => table(all.map((w) => ({ ...w, autoPublish: w.autoPublish ? 'on' : 'off' })), ['id', 'name', 'websiteUrl', 'plan', 'billingStatus', 'autoPublish']));
      }),
    );

  ws.command('show')
    .description('show a workspace: settings, plan, usage this month, connectors, members')
    .option(...WORKSPACE_OPTION)
    .argument('[workspace]', 'workspace id or name (same as --workspace)')
    .action(
      act<{ workspace?: string }>(io, async ({ app, opts, args, out }) => {
        const w = await resolveWorkspace(app, args[0] ?? opts.workspace);
        const [usage, connectors, members] = await Promise.all([getUsage(app, w), listConnectorsFor(app, w.id), listMembers(app, w.id)]);
        const lapsed = subscriptionLapsed(w, app.clock.now());
        out.result({ ...w, subscriptionLapsed: lapsed, usage, connectors, members }, () =>
          [
            `${w.name} (${w.id})`,
            `  Website:       ${w.websiteUrl}`,
            `  Site URL:      ${w.siteUrl ?? '(website)'}`,
            `  Content path:  ${w.contentPath || '/'}`,
            `  Auto-publish:  ${w.autoPublish ? 'on' : 'off'}`,
            `  Keywords:      location ${keywordWhere(w, {}).location}, language ${keywordWhere(w, {}).language}${w.keywordLocation && w.keywordLanguage ? '' : ' (unset ones are the fallback)'}`,
            `  Plan:          ${w.plan} (${w.billingStatus}${w.graceUntil ? `, grace until ${w.graceUntil}` : ''})${lapsed ? ' - agent access refused until active again' : ''}`,
            // A self-hosted operator reads "free, 0/10" as a trial: say what it means here.
            '                 (a label: this svc bills nothing; the allowances below cap each month',
            '                 what agents create and audit and keyword lookups; change them with',
            '                 svc workspaces set --plan NAME --allowance articles=N,audits=N,keywords=N)',
            `  Usage ${app.clock.now().toISOString().slice(0, 7)}:`,
            ...usage.map((u) => `    ${u.label}: ${u.used}/${u.allowed}`),
            `  Connectors:    ${connectors.length ? connectors.map((c) => `${c.kind}${c.enabled ? '' : ' (disabled)'}`).join(', ') : 'none'}`,
            `  Members:       ${members.map((m) => `${m.email} (${m.role})`).join(', ') || 'none'}`,
          ].join('\n'),
        );
      }),
    );

  ws.command('set')
    .description('change workspace settings, plan, billing status and allowances')
    .option(...WORKSPACE_OPTION)
    .option('--name <name>', 'rename')
    .option('--website <url>', 'the site the workspace tracks')
    .option('--site-url <url>', 'where the blog is served ("" to clear)')
    .option('--content-path <path>', 'blog path under the site URL, e.g. /blog')
    .option('--plan <plan>', 'plan name')
    .option('--billing-status <status>', 'active | past_due | lapsed')
    .option('--grace-until <iso>', 'end of the grace period while past_due ("" to clear)')
    .option('--auto-publish <on|off>', 'publish new articles at once')
    .option('--allowance <list>', 'monthly allowances, e.g. articles=20,audits=100,keywords=500')
    .option('--keyword-location <code|name>', 'default location of keyword lookups, e.g. 2840 or "United Kingdom" ("" to clear)')
    .option('--keyword-language <code|name>', 'default language of keyword lookups, e.g. en ("" to clear)')
    .action(
      act<SetOptions>(io, async ({ app, opts, out }) => {
        const w = await resolveWorkspace(app, opts.workspace);
        const input: WorkspaceUpdateInput = {
          name: opts.name,
          websiteUrl: opts.website,
          siteUrl: opts.siteUrl === '' ? null : opts.siteUrl,
          contentPath: opts.contentPath,
          plan: opts.plan,
          billingStatus: opts.billingStatus as WorkspaceUpdateInput['billingStatus'],
          graceUntil: opts.graceUntil === '' ? null : opts.graceUntil,
          autoPublish: opts.autoPublish === undefined ? undefined : onOff(opts.autoPublish, '--auto-publish'),
          ...parseAllowances(opts.allowance),
          keywordLocation: opts.keywordLocation === '' ? null : opts.keywordLocation,
          keywordLanguage: opts.keywordLanguage === '' ? null : opts.keywordLanguage,
        };
        const updated = await updateWorkspace(app, w.id, input);
        out.result(updated, () => `Updated workspace ${updated.name}`);
      }),
    );

}

export function onOff(value: string, flag: string): boolean {
  const v = value.toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(v)) return true;
  if (['off', 'false', 'no', '0'].includes(v)) return false;
  throw usageError(`${flag} takes on or off, not "${value}"`);
}

function parseAllowances(list: string | undefined): Partial<WorkspaceUpdateInput> {
  if (list === undefined) return {};
  const keys: Record<string, keyof WorkspaceUpdateInput> = { articles: 'allowanceArticles', audits: 'allowanceAudits', keywords: 'allowanceKeywords' };
  const result: Partial<Record<keyof WorkspaceUpdateInput, number>> = {};
  for (const part of list.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\w+)=(\d+)$/.exec(part);
    if (!m || !keys[m[1]]) throw usageError(`--allowance: "${part}" is not kind=N`, 'Kinds: articles, audits, keywords; e.g. --allowance articles=20,audits=100');
    result[keys[m[1]]] = Number(m[2]);
  }
  return result as Partial<WorkspaceUpdateInput>;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
