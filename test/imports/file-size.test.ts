import { execFileSync, spawn } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// A file larger than svc would take is refused by name from its size, before any of it is read:
// the sparse files below cost no disk and no time unless they are read.
describe('files too large to import', () => {
  it('a post file over 8 MB and an export over 500 MB are named with their size and the limit; the rest is imported', async () => {
    const w = await importWorld();
    writeFileSync(path.join(w.d.dir, 'good.md'), '---\ntitle: Good\n---\nFine text.\n');
    for (const [name, bytes] of [['huge.md', 3_000_000_000], ['big.md', 8_000_001], ['export.json', 600_000_000]] as const) {
      writeFileSync(path.join(w.d.dir, name), '');
      truncateSync(path.join(w.d.dir, name), bytes);
    }
    const started = performance.now();
    const r = await w.cli(['articles', 'import', '--keep-going', 'good.md', 'huge.md', 'big.md', 'export.json']);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`huge.md: ${path.join(w.d.dir, 'huge.md')} is 3.0 GB; svc reads a post file of at most 8.0 MB`);
    expect(r.stderr).toContain(`big.md: ${path.join(w.d.dir, 'big.md')} is 8.0 MB; svc reads a post file of at most 8.0 MB`);
    expect(r.stderr).toContain(`export.json: ${path.join(w.d.dir, 'export.json')} is 600.0 MB; svc reads an export of at most 500.0 MB`);
    expect(r.stderr).not.toMatch(/Cannot read|Internal error/);
    expect((await w.cli(['articles', 'list', '--json'])).json().total).toBe(1);
  });

  it('a named pipe, which has no size, is read up to the limit and then refused', async () => {
    const w = await importWorld();
    const fifo = path.join(w.d.dir, 'endless.md');
    execFileSync('mkfifo', [fifo]);
    // A writer that would go on for 9 MB; the import stops reading past 8 MB.
    const writer = spawn('sh', ['-c', `head -c 9000000 /dev/zero | tr '\\0' a > '${fifo}'`], { stdio: 'ignore' });
    const r = await w.cli(['articles', 'import', 'endless.md']);
    writer.kill();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`endless.md: ${fifo} is more than 8.0 MB; svc reads a post file of at most 8.0 MB`);
  });
});
