import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { poll } from '../helpers/poll.js';
import { importWorld } from './world.js';

describe('an interrupted import', () => {
  it('killed with SIGKILL in the middle of import --publish: the same command again finishes the job, with no duplicate and the old order', async () => {
    const w = await importWorld();
    const n = 600;
    mkdirSync(path.join(w.d.dir, 'posts'));
    for (let i = 0; i < n; i++) {
      const date = new Date(Date.UTC(2016, 0, 1) + i * 86_400_000).toISOString();
      writeFileSync(path.join(w.d.dir, 'posts', `p-${String(i).padStart(3, '0')}.md`), `---\ntitle: Post ${i}\ndate: ${date}\ntags: [t${i % 7}]\n---\nText ${i}.\n`);
    }
    const args = ['articles', 'import', '--publish', 'posts', '--workspace', w.ws.name];
    const child = spawn(process.execPath, [BIN, ...args], { cwd: w.d.dir, env: { PATH: process.env.PATH ?? '', CI: 'true', ...w.d.env }, stdio: 'ignore' });
    const count = async () => Number((await w.d.app.db('articles').count({ n: '*' }).first())?.n);
    const published = async () => Number((await w.d.app.db('articles').where({ status: 'published' }).count({ n: '*' }).first())?.n);
    // The drafts go in 1,000 to a transaction, so all 600 at once; the publish, 250 at a time, is where it is killed.
    await poll(published, (c) => c > 0 || child.exitCode !== null, 120_000);
    child.kill('SIGKILL');
    await once(child, 'close');
    const partial = await published();
    // Killed in the middle: some posts published, not all (else the rerun below proves nothing).
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(n);
    expect(await count()).toBe(n);

    const again = await w.cli(args.slice(0, -2));
    expect(again.code, again.stderr).toBe(0);
    expect(await count()).toBe(n);
    const sitemap = (await w.api('/sitemap')).body.data.articles.map((a: { slug: string }) => a.slug);
    expect(sitemap).toEqual(Array.from({ length: n }, (_, i) => `p-${String(n - 1 - i).padStart(3, '0')}`));
    expect((await w.api('/articles?tag=t3&limit=1')).body.data.total).toBe(Math.ceil((n - 3) / 7));
    expect(again.stderr).toContain(`note: Skipped ${n}: posts already imported unchanged`);
    expect(await published()).toBe(n);
  }, 240_000);
});
