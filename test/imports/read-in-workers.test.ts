import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../src/imports/service.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { importWorld } from './world.js';

// The posts of an import are read (front matter, body) in the render workers, several to a task,
// and each file's notes are said in file order when its post is taken. A task that fails (here:
// every task past a 1 ms render deadline) has its files read on the main thread instead: the
// report must be the same, notes and their order included.
describe('an import reads its markdown files in the render workers', () => {
  it('reads them there, and the report is the same when the workers fail and the files are read here', async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'posts'));
    for (let i = 0; i < 40; i++) {
      const extra = i % 7 === 0 ? 'layout: post\n' : i % 11 === 0 ? 'slug: /blog/deep/post-x' + i + '\n' : '';
      const front = i === 13 ? 'title: [unclosed\n' : `title: Post ${i}\ndate: 2024-01-${String((i % 28) + 1).padStart(2, '0')}\n${extra}`;
      writeFileSync(path.join(w.d.dir, 'posts', `p${String(i).padStart(2, '0')}.md`), `---\n${front}---\nBody of post ${i}. {{< youtube abc >}}\n`);
    }
    const failing = await startDaemonOn(w.d.env, w.d.dir, { 'rendering.timeout': 1 }, false);
    const read = async (app: typeof w.d.app) => {
      const r = await importFiles(app, w.ws, ['posts'], { cwd: w.d.dir, keepGoing: true });
      // The second run finds the first run's posts: compare what was read, not what was written.
      return { notes: r.notes.filter((n) => !n.startsWith('Skipped')), failed: r.failed, posts: [...r.imported, ...r.already].map((p) => [p.slug, p.title, p.importedPublishedAt]) };
    };
    const before = w.d.app.renderer.stats().started;
    const inWorkers = await read(w.d.app);
    expect(w.d.app.renderer.stats().started - before).toBeGreaterThanOrEqual(3); // 40 files, 16 to a task
    const here = await read(failing.app);
    expect(inWorkers.posts).toHaveLength(39);
    expect(inWorkers.failed).toEqual([{ source: path.join('posts', 'p13.md'), error: expect.stringContaining('front matter is not valid YAML') }]);
    expect(inWorkers.notes.some((n) => n.includes('layout'))).toBe(true);
    expect(inWorkers.notes.some((n) => n.includes('/blog/deep/post-x11'))).toBe(true);
    expect(here).toEqual(inWorkers);
    await failing.stop();
  });
});
