import { describe, expect, it } from 'vitest';
import { getArticle, listArticles } from '../../src/articles/service.js';
import { createArticle } from '../../src/publishing/create.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { spawnCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedWorkspace } from '../helpers/seed.js';

// The CLI and a running daemon are separate processes on one database (WAL + busy timeout on
// SQLite): writes from both at once must all land, and the daemon keeps answering meanwhile.
describe('CLI and daemon on the same database', () => {
  it('CLI writes while the daemon serves and writes', async () => {
    const d = await startDaemon();
    const ws = await seedWorkspace(d.app, { name: 'shared.example' });
    const cliWrites = Array.from({ length: 4 }, (_, i) =>
      spawnCli(['articles', 'add', '--title', `From the CLI ${i}`, '--json'], { env: d.env, cwd: d.dir }),
    );
    let cliDone = false;
    const all = Promise.all(cliWrites).finally(() => (cliDone = true));
    // The daemon keeps writing and answering for as long as the CLI processes run.
    const daemonWrites = (async () => {
      let n = 0;
      while (!cliDone || n < 3) await createArticle(d.app, await getWorkspace(d.app, ws.id), { title: `From the daemon ${n++}` });
      return n;
    })();
    const probes = (async () => {
      const statuses: number[] = [];
      while (!cliDone) statuses.push((await fetch(`${d.url}/healthz`)).status);
      return statuses;
    })();
    const results = await all;
    const daemonCount = await daemonWrites;
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(new Set(await probes)).toEqual(new Set([200]));

    const { total } = await listArticles(d.app, ws, { limit: 100 });
    expect(total).toBe(4 + daemonCount);
    // What the CLI wrote is visible to the daemon at once.
    const ids = results.map((r) => r.json().id);
    for (const id of ids) expect((await getArticle(d.app, ws, id)).id).toBe(id);
  });
});
