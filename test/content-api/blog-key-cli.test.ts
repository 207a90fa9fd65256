import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

describe('svc blog-key', () => {
  it('generates a key once (creating the headless connector), shows it by hint, regenerates and revokes', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const cli = (...args: string[]) => runCli([...args, '--workspace', ws.name], { env: d.env, cwd: d.dir });

    let r = await cli('blog-key', 'show');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Blog key not found');

    r = await cli('blog-key', 'generate');
    expect(r.code, r.stderr).toBe(0);
    const key = /svc_blog_[0-9A-Za-z]{32}/.exec(r.stdout)![0];
    expect(r.stderr).toContain('shown once');
    expect(r.stdout).toContain('/api/v1/content');
    const connectors = await d.app.db('connectors').where({ workspace_id: ws.id, kind: 'headless' });
    expect(connectors).toHaveLength(1);
    // Only the hash is stored.
    const rows = JSON.stringify(await d.app.db('blog_keys').select());
    expect(rows).not.toContain(key);

    r = await cli('blog-key', 'generate');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already has a blog key/);
    expect(r.stderr).toContain('svc blog-key regenerate');

    r = await cli('blog-key', 'show', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ workspace: ws.name, hint: `svc_blog_...${key.slice(-4)}` });
    expect(r.stdout).not.toContain(key);

    r = await cli('blog-key', 'regenerate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    r = await cli('blog-key', 'regenerate', '--yes', '--json');
    expect(r.code, r.stderr).toBe(0);
    const next = r.json().key as string;
    expect(next).not.toBe(key);
    const get = (k: string) => fetch(`${d.url}/api/v1/content/tags`, { headers: { Authorization: `Bearer ${k}` } });
    expect((await get(key)).status).toBe(401);
    expect((await get(next)).status).toBe(200);
    expect(await d.app.db('connectors').where({ workspace_id: ws.id, kind: 'headless' })).toHaveLength(1);

    r = await cli('blog-key', 'revoke', '--yes');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Revoked');
    expect((await get(next)).status).toBe(401);
  });
});
