import type { App } from '../../src/app.js';
import { ensureConnector } from '../../src/connectors/store.js';
import { createArticle } from '../../src/publishing/create.js';
import type { ArticleCreateInput } from '../../src/articles/inputs.js';
import { addMember } from '../../src/accounts/members.js';
import type { Role } from '../../src/workspaces/roles.js';
import { createWorkspace, getWorkspace } from '../../src/workspaces/service.js';
import type { Workspace } from '../../src/workspaces/types.js';
import { createUser } from '../../src/workspaces/users.js';

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** Data is created through the services, so fixtures follow the same rules as real input. */
export async function seedWorkspace(app: App, fields: Partial<{ name: string; websiteUrl: string; siteUrl: string }> = {}): Promise<Workspace> {
  return createWorkspace(app, { name: fields.name ?? `site-${unique()}.example`, websiteUrl: fields.websiteUrl ?? 'https://example.com', siteUrl: fields.siteUrl });
}

export async function seedUser(app: App, ws: Workspace | null, role: Role = 'admin', password = 'correct horse battery') {
  const user = await createUser(app, { email: `user-${unique()}@example.com`, password });
  if (ws) await addMember(app, ws.id, user.email, role);
  return { ...user, password };
}

export async function seedArticle(app: App, ws: Workspace, input: Partial<ArticleCreateInput> = {}) {
  const fresh = await getWorkspace(app, ws.id);
  const { article } = await createArticle(app, fresh, {
    title: input.title ?? `Article ${unique()}`,
    bodyMarkdown: input.bodyMarkdown ?? '## Intro\n\nSome words about the topic.\n\n## Details\n\nMore words here.',
    ...input,
  });
  return article;
}

/** A workspace whose articles go out to a webhook (https://hooks.example/svc), and a draft of it. */
export async function seedWebhookArticle(app: App) {
  const ws = await seedWorkspace(app);
  await ensureConnector(app.db, ws.id, 'webhook', new Date().toISOString(), { url: 'https://hooks.example/svc' });
  return { ws, article: await seedArticle(app, ws) };
}
