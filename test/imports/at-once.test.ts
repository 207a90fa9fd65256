import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../src/imports/service.js';
import { updateWorkspace } from '../../src/workspaces/service.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { importWorld } from './world.js';

describe('imports at the same moment, and with auto-publish', () => {
  it('two processes importing the same files at once: each post is imported once, the other run says which slugs were taken', async () => {
    const w = await importWorld();
    const other = await startDaemonOn(w.d.env, w.d.dir, {}, false);
    const files = Array.from({ length: 150 }, (_, i) => {
      writeFileSync(path.join(w.d.dir, `p${i}.md`), `---\ntitle: Post ${i}\ndate: 2020-01-01T00:00:00Z\n---\nText ${i}.\n`);
      return `p${i}.md`;
    });
    const run = (app: typeof w.d.app) => importFiles(app, w.ws, files, { cwd: w.d.dir, publish: true, keepGoing: true });
    const [a, b] = await Promise.all([run(w.d.app), run(other.app)]);
    expect(a.imported.length + b.imported.length).toBe(150);
    // The other run found each post either already in (when it looked) or taken (when it wrote).
    expect(a.failed.length + a.already.length + b.failed.length + b.already.length).toBe(150);
    for (const f of [...a.failed, ...b.failed]) expect(f.error).toMatch(/^The slug "p\d+" is already used by another article/);
    expect((await w.api('/articles?limit=1')).body.data.total).toBe(150);
    expect((await w.cli(['articles', 'list', '--json'])).json().total).toBe(150);
  });

  it('with auto-publish on, an import publishes without --publish; drafts stay drafts', async () => {
    const w = await importWorld();
    await updateWorkspace(w.d.app, w.ws.id, { autoPublish: true });
    w.fixture('hugo');
    const r = await w.cli(['articles', 'import', 'hugo/content', '--json']);
    expect(r.json().counts).toMatchObject({ imported: 4, published: 3, drafts: 1 });
    expect((await w.api('/articles')).body.data.total).toBe(3);
  });
});
