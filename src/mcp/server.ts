import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../version.js';
import { registerPrompts } from './prompts.js';
import { registerArticleResources } from './resources.js';
import type { ToolEnv } from './result.js';
import { registerArticleTools } from './tools/articles.js';
import { registerAuditTool } from './tools/audit.js';
import { registerImageTools } from './tools/images.js';
import { registerKeywordTools } from './tools/keywords.js';
import { registerPublishingTools } from './tools/publishing.js';
import { registerPreviewTool } from './tools/previews.js';
import { registerSiteProfileTool } from './tools/site-profile.js';

const INSTRUCTIONS =
  'This server manages the SEO articles of one website workspace. Start with get_site_profile (site, plan, credits left, granted scopes). ' +
  'Read with list_articles / get_article; write with create_article (one article credit; a title that already exists is refused unless allowDuplicate) ' +
  'and update_article (free); check with audit_article (one audit credit). ' +
  'publish_article / unpublish_article / schedule_article / unschedule_article send articles to the live site or take them down; delete_article removes one for good. ' +
  'Every article result says whether it is live, its public url, publishedAt, hasUnpublishedChanges and each destination\'s delivery state: ' +
  'report a pending or failed delivery to the user as such, never as a success. ' +
  'Link to other articles of the site with Markdown links to the url find_link_targets gives for a topic (published articles only, so every link is live). ' +
  'The write_seo_article prompt describes an article that passes the audit. ' +
  'Before writing, research_keywords gives search volume, difficulty, intent and ideas (one keyword lookup credit per keyword not looked up in 30 days); ' +
  'list_keywords shows which keywords articles already target, gaps no article covers yet, and conflicts where two articles share a focus keyword.';

/**
 * One MCP server per call (stateless Streamable HTTP): every tool is listed whatever the
 * scopes, and each checks its scope and the caller's role when used.
 */
export function createMcpServer(env: ToolEnv): McpServer {
  const server = new McpServer({ name: 'svc', title: 'svc SEO workspace', version: VERSION }, { instructions: INSTRUCTIONS });
  registerSiteProfileTool(server, env);
  registerArticleTools(server, env);
  registerAuditTool(server, env);
  registerKeywordTools(server, env);
  registerPublishingTools(server, env);
  registerPreviewTool(server, env);
  registerImageTools(server, env);
  registerArticleResources(server, env);
  registerPrompts(server);
  // Stateless: a server that lives for one request can never send list_changed notifications,
  // so it advertises none (the SDK turns listChanged on when the first tool is registered).
  server.server.registerCapabilities({ tools: { listChanged: undefined }, resources: { listChanged: undefined }, prompts: { listChanged: undefined } });
  return server;
}
