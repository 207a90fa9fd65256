import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// A relative link is looked up beside its post (is it a file that is not an image?). A path the
// system refuses to look up (a name over 255 bytes) is no such file: the post is imported with
// the link as written, never an internal error.
describe('relative links the file system cannot look up', () => {
  it('a link to a file name too long for the system is imported as written', async () => {
    const w = await importWorld();
    const dir = path.join(w.d.dir, 'posts');
    mkdirSync(dir);
    const long = `${'a'.repeat(300)}.pdf`;
    writeFileSync(path.join(dir, 'long.md'), `---\ntitle: Long\n---\nSee [the file](${long}).\n`);
    const r = await w.cli(['articles', 'import', 'posts', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json().counts).toMatchObject({ imported: 1, failed: 0 });
    expect(r.stderr).not.toMatch(/internal error|ENAMETOOLONG/);
  });
});
