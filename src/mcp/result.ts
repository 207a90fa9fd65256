import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Principal } from '../auth/principal.js';
import { type Scope, scopeRefusal } from '../auth/scopes.js';
import { toAppError } from '../errors.js';
import { type Role, roleAtLeast, roleRefusal } from '../workspaces/roles.js';
import type { Membership, Workspace } from '../workspaces/types.js';

/** What every tool of one call sees: checked fresh for this call by the endpoint. */
export interface ToolEnv {
  app: App;
  principal: Principal;
  workspace: Workspace;
  membership: Membership;
}

export const text = (body: string, structuredContent?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: body }],
  ...(structuredContent ? { structuredContent } : {}),
});

export const toolError = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/**
 * Gate and wrap one tool: the scope is checked when the tool is used (spec: "unticked scopes
 * are refused at the moment of use"), then the role; AppErrors become tool errors with their
 * message; anything else is logged and answered "Internal error" (the SDK would echo it).
 */
export function gated<A>(env: ToolEnv, gate: { tool: string; scope: Scope; role: Role }, fn: (args: A) => Promise<CallToolResult>) {
  return async (args: A): Promise<CallToolResult> => {
    if (!env.principal.scopes.includes(gate.scope)) return toolError(scopeRefusal(gate.scope));
    if (!roleAtLeast(env.membership.role, gate.role)) return toolError(roleRefusal(gate.role, env.membership.role));
    try {
      return await fn(args);
    } catch (err) {
      const e = toAppError(err);
      if (e.status < 500 && e.code !== 'internal_error') return toolError(e.message);
      env.app.log.error({ err, tool: gate.tool, principal: env.principal.id }, 'MCP tool failed');
      return toolError('Internal error');
    }
  };
}
