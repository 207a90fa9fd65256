import type { ArticleCreateInput } from '../../src/articles/inputs.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import type { Clock } from '../../src/lib/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { checkedFetch } from '../helpers/openapi-contract.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

/** A daemon, a workspace with a blog key, and helpers to publish and to call the content API. */
export async function contentFixture(options: { overrides?: Record<string, unknown>; siteUrl?: string; jobs?: boolean; clock?: Clock } = {}) {
  const d = await startDaemon({ overrides: options.overrides, jobs: options.jobs, clock: options.clock });
  const ws = await seedWorkspace(d.app, { siteUrl: options.siteUrl });
  const { key } = await generateBlogKey(d.app, ws);
  const base = `${d.url}/api/v1/content`;
  const api = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const k = init.key === undefined ? key : init.key;
    if (k !== null && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${k}`);
    return checkedFetch(`${base}${path}`, { ...init, headers });
  };
  const json = async (path: string) => {
    const res = await api(path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const publish = async (input: Partial<ArticleCreateInput> = {}) => {
    const a = await seedArticle(d.app, ws, input);
    await publishArticle(d.app, await getWorkspace(d.app, ws.id), a.id);
    return a;
  };
  return { d, ws, key, base, api, json, publish, cli: { env: d.env, cwd: d.dir } };
}
