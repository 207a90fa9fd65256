import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Principal } from '../auth/principal.js';
import { type Scope, scopeRefusal } from '../auth/scopes.js';
import { type AppError, toAppError } from '../errors.js';
import { type Role, roleAtLeast, roleRefusal } from '../workspaces/roles.js';
import type { Membership, Workspace } from '../workspaces/types.js';

/** What every tool of one call sees: checked fresh for this call by the endpoint. */
export interface ToolEnv {
  app: App;
  principal: Principal;
  workspace: Workspace;
  membership: Membership;
  /** Told when a dependency could not serve a call: the endpoint then answers the POST 503 (endpoint.ts). */
  onUnavailable?: (e: AppError) => void;
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
 * Every call is counted by tool and outcome (svc_mcp_tool_calls_total).
 */
export function gated<A>(env: ToolEnv, gate: { tool: string; scope: Scope | 'depends'; role: Role }, fn: (args: A) => Promise<CallToolResult>) {
  const counted = (outcome: 'ok' | 'error' | 'refused' | 'internal_error', result: CallToolResult) => {
    env.app.metrics.mcpToolCalls.inc({ tool: gate.tool, outcome });
    return result;
  };
  return async (args: A): Promise<CallToolResult> => {
    // 'depends': the scope follows from what the call touches, and the tool checks it (delete_article).
    if (gate.scope !== 'depends' && !env.principal.scopes.includes(gate.scope)) return counted('refused', toolError(scopeRefusal(gate.scope)));
    if (!roleAtLeast(env.membership.role, gate.role)) return counted('refused', toolError(roleRefusal(gate.role, env.membership.role)));
    try {
      const result = await fn(args);
      return counted(result.isError ? 'error' : 'ok', result);
    } catch (err) {
      const e = toAppError(err);
      if (e.status >= 500 && e.details?.dependency) env.onUnavailable?.(e);
      if (e.expose && e.code !== 'internal_error') return counted('error', toolError(e.message));
      env.app.log.error({ err, tool: gate.tool, principal: env.principal.id }, 'MCP tool failed');
      return counted('internal_error', toolError('Internal error'));
    }
  };
}
