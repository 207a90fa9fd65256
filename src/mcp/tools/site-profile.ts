import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getUsage } from '../../workspaces/usage.js';
import { type ToolEnv, gated, text } from '../result.js';
import { toolInput } from '../tool-input.js';
import { siteProfileOutput } from './output.js';

/** Lines of decisions.md "get_site_profile text", one item a line. */
export async function siteProfileText(env: ToolEnv): Promise<{ text: string; usage: Awaited<ReturnType<typeof getUsage>> }> {
  const ws = env.workspace;
  const usage = await getUsage(env.app, ws);
  const lines = [
    `${ws.name} — ${ws.websiteUrl}`,
    `Plan: ${ws.plan} (${ws.billingStatus})`,
    ...usage.map((u) => `${u.label}: ${u.used}/${u.allowed}`),
    `Scopes: ${env.principal.scopes.join(', ')}`,
  ];
  return { text: lines.join('\n'), usage };
}

/** No arguments (and none unknown: the schema is strict like every tool's). */
const NO_INPUT = toolInput('arguments', {}, {});

export function registerSiteProfileTool(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'get_site_profile',
    {
      title: 'Site profile',
      description:
        'Describe the workspace this connection works in: site name and URL, plan and billing status, ' +
        "this month's credit usage (articles, audits, keyword lookups: used/allowed) and the scopes granted to this connection. " +
        'Call it first to learn what you may do and how many credits are left. Needs the `read` scope; spends nothing.',
      inputSchema: NO_INPUT,
      outputSchema: siteProfileOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'get_site_profile', scope: 'read', role: 'viewer' }, async () => {
      const { text: body, usage } = await siteProfileText(env);
      const ws = env.workspace;
      return text(body, {
        workspace: { id: ws.id, name: ws.name, websiteUrl: ws.websiteUrl, siteUrl: ws.siteUrl, contentPath: ws.contentPath, autoPublish: ws.autoPublish },
        plan: ws.plan,
        billingStatus: ws.billingStatus,
        graceUntil: ws.graceUntil,
        usage: Object.fromEntries(usage.map((u) => [u.kind, { used: u.used, allowed: u.allowed }])),
        scopes: env.principal.scopes,
        role: env.membership.role,
      });
    }),
  );
}
