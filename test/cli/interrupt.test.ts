import { execFileSync, spawn } from 'node:child_process';
import { constants, mkdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { beforeExit } from '../helpers/settle.js';
import { initialised } from './sandbox.js';

// Issue 24: Ctrl-C during an import or a bulk publish used to end with exit 130 and not a word.
// The real binary is interrupted with SIGINT once its first batch is in the database.

async function interrupt(box: Awaited<ReturnType<typeof initialised>>, args: string[], written: () => Promise<number>) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: box.dir, env: { PATH: process.env.PATH ?? '', HOME: box.dir, CI: 'true', ...box.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 60_000;
  let exited = false;
  void ended.then(() => (exited = true));
  while (!exited && (await written()) === 0) {
    if (Date.now() > deadline) throw new Error('nothing was written within 60 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGINT');
  return { ...(await ended), stderr, stdout };
}

describe('Ctrl-C during bulk work (issue 24)', () => {
  it('import: says how much was written and that rerunning finishes; the rerun does', async () => {
    const box = await initialised();
    const dir = path.join(box.dir, 'posts');
    mkdirSync(dir);
    const total = 1500;
    for (let i = 0; i < total; i++) writeFileSync(path.join(dir, `post-${i}.md`), `---\ntitle: Post ${i}\n---\nBody ${i}\n`);
    const app = await box.app();
    const count = async () => Number((await app.db('articles').count({ n: '*' }).first())?.n ?? 0);
    const r = await interrupt(box, ['articles', 'import', 'posts'], count);
    expect(r.signal, r.stderr).toBe('SIGINT'); // the shell reports 128 + 2 = 130
    const written = await count();
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(total); // 15 batches: the signal lands long before the last
    expect(r.stderr).toBe(`interrupted: Importing: ${written.toLocaleString('en-US')} of 1,500 written before the interruption (each batch is written whole or not at all).\nRun the same command again to finish the job: posts already imported are skipped.\n`);
    const again = await box.spawn(['articles', 'import', 'posts', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().counts).toMatchObject({ imported: total - written, already: written });
    expect(await count()).toBe(total);
  }, 180_000);

  it('import: Ctrl-C while it still reads the files says nothing was written yet, and that a rerun does the job', async () => {
    const box = await initialised();
    // A named pipe as the post: svc blocks reading it until the test writes, so the signal surely lands while it reads.
    execFileSync('mkfifo', [path.join(box.dir, 'slow.md')]);
    const child = spawn(process.execPath, [BIN, 'articles', 'import', 'slow.md'], { cwd: box.dir, env: { PATH: process.env.PATH ?? '', HOME: box.dir, CI: 'true', ...box.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    // Opening the pipe to write completes once svc has opened it to read. If svc ends first, the
    // open would wait for a reader forever: the test opens one itself to let it go, and fails.
    const fifo = path.join(box.dir, 'slow.md');
    const opening = open(fifo, 'w');
    const writer = await beforeExit(opening, child, 'svc opening slow.md to read it', () => stderr).catch(async (err) => {
      await (await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK)).close();
      await (await opening).close();
      throw err;
    });
    child.kill('SIGINT');
    const r = await ended;
    await writer.close();
    expect(r.signal, stderr).toBe('SIGINT');
    expect(stderr).toBe('interrupted: Reading the files: nothing written yet.\nRun the same command again to finish the job: posts already imported are skipped.\n');
    const app = await box.app();
    expect(Number((await app.db('articles').count({ n: '*' }).first())?.n)).toBe(0);
  }, 60_000);

  it('publish --all-drafts: the same report; --json makes it JSON on stdout', async () => {
    const box = await initialised();
    const dir = path.join(box.dir, 'posts');
    mkdirSync(dir);
    const total = 1500;
    for (let i = 0; i < total; i++) writeFileSync(path.join(dir, `post-${i}.md`), `---\ntitle: Post ${i}\n---\nBody ${i}\n`);
    expect((await box.spawn(['articles', 'import', 'posts'], {})).code).toBe(0);
    await box.spawn(['blog-key', 'generate']);
    const app = await box.app();
    const published = async () => Number((await app.db('articles').where({ status: 'published' }).count({ n: '*' }).first())?.n ?? 0);
    const r = await interrupt(box, ['articles', 'publish', '--all-drafts', '--json'], published);
    expect(r.signal, r.stderr).toBe('SIGINT');
    const done = await published();
    expect(done).toBeLessThan(total);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'interrupted', done: [{ phase: 'Publishing', written: done, total }] });
    expect(JSON.parse(r.stdout).error.message).toContain('Run the same command again to finish the job: what is published is no longer a draft.');
    expect((await box.spawn(['articles', 'publish', '--all-drafts'])).code).toBe(0);
    expect(await published()).toBe(total);
  }, 180_000);
});
