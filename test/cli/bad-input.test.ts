import { writeFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, initialised } from './sandbox.js';

const md = (front: string, body = 'Some text.\n') => `---\n${front}\n---\n${body}`;

describe('svc bad input: a clean message and the right exit code, never a stack or half a write', () => {
  it('articles import checks the whole batch first: duplicate slugs, missing titles, directories', async () => {
    const box = await initialised();
    writeFileSync(path.join(box.dir, 'one.md'), md('title: One\nslug: same'));
    writeFileSync(path.join(box.dir, 'two.md'), md('title: Two\nslug: same'));
    writeFileSync(path.join(box.dir, 'untitled.md'), md('author: Ann'));
    mkdirSync(path.join(box.dir, 'folder.md'));
    const r = await box.cli(['articles', 'import', 'one.md', 'two.md', 'untitled.md']);
    expectCleanError(r, 1, 'error: Nothing imported; fix these first (or pass --keep-going to import the rest):');
    expect(r.stderr).toContain('two.md: the slug "same" is also used by one.md');
    expect(r.stderr).toContain('untitled.md: a title is required');
    expect(r.stderr).not.toContain('one.md:');
    expectCleanError(await box.cli(['articles', 'import', 'one.md', 'folder.md']), 1, `${path.join(box.dir, 'folder.md')} is a folder with no markdown files (.md, .markdown, .mdx) in it`);
    expect((await box.json(['articles', 'list'])).total).toBe(0);
  });

  it('binary or non-UTF-8 files are refused, not stored with replaced bytes', async () => {
    const box = await initialised();
    writeFileSync(path.join(box.dir, 'latin1.md'), Buffer.from('# Caf\xe9\n\ncr\xe8me\n', 'latin1'));
    writeFileSync(path.join(box.dir, 'nul.md'), Buffer.from([0x23, 0x20, 0x41, 0x0a, 0x00, 0x01, 0x02]));
    writeFileSync(path.join(box.dir, 'ok.md'), '\ufeff# Caf\u00e9\n\ncr\u00e8me\n');
    expectCleanError(await box.cli(['articles', 'add', '--body-file', 'latin1.md']), 1, `error: ${path.join(box.dir, 'latin1.md')} is not UTF-8 text`);
    expectCleanError(await box.cli(['articles', 'add', '--body-file', 'nul.md']), 1, 'nul.md is a binary file, not markdown text');
    expectCleanError(await box.cli(['articles', 'import', 'latin1.md']), 1, 'latin1.md is not UTF-8 text');
    expectCleanError(await box.cli(['articles', 'add', '--title', 'X', '--body-file', '-'], { stdin: 'a\u0000b' }), 1, 'error: stdin is a binary file, not markdown text');
    expect((await box.json(['articles', 'list'])).total).toBe(0);
    // A UTF-8 file (with a byte-order mark) still works, and the mark is not kept.
    expect(await box.json(['articles', 'add', '--body-file', 'ok.md'])).toMatchObject({ title: 'Café', bodyMarkdown: '# Café\n\ncrème\n' });
  });

  it('webhook rotate-secret: a grace too long to be a date is a usage error', async () => {
    const box = await initialised();
    const env = { SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' };
    expect((await box.cli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'], { env })).code).toBe(0);
    expectCleanError(await box.cli(['webhook', 'rotate-secret', '--grace', '99999999d'], { env }), 2, 'error: --grace is at most 365d, not "99999999d"');
    const r = await box.cli(['webhook', 'rotate-secret', '--grace', '365d', '--yes', '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.json().previousSecretUntil).toMatch(/^\d{4}-/);
  });

  it('webhook deliveries --limit takes a whole number', async () => {
    const box = await initialised();
    for (const bad of ['abc', '-1', '0', '1.5', '501']) {
      expectCleanError(await box.cli(['webhook', 'deliveries', '--limit', bad]), 2, `error: --limit takes a whole number from 1 to 500, not "${bad}"`);
    }
    const r = await box.cli(['webhook', 'deliveries', '--limit', 'x', '--json']);
    expect(r.json()).toEqual({ error: { code: 'usage', message: '--limit takes a whole number from 1 to 500, not "x"' } });
  });

  it('webhook listen: an unknown host or an empty secret is a message, not a stack', async () => {
    const box = await initialised();
    expectCleanError(await box.cli(['webhook', 'listen', '--secret', 's', '--host', 'no-such-host.invalid', '--port', '0']), 2, 'error: Cannot listen on no-such-host.invalid: not an address of this machine');
    expectCleanError(await box.cli(['webhook', 'listen', '--secret', '', '--port', '0']), 2, 'error: --secret must not be empty');
  });

  it('migrate --status --rollback is refused rather than silently doing one', async () => {
    const box = await initialised();
    expectCleanError(await box.cli(['migrate', '--status', '--rollback']), 2, 'error: Pass --status or --rollback, not both');
  });
});

describe('svc --json with usage mistakes', () => {
  it('prints the error as JSON on stdout too, exit 2', async () => {
    const box = await initialised();
    const missing = await box.cli(['articles', 'show', '--json']);
    expect(missing.code).toBe(2);
    expect(missing.json()).toEqual({ error: { code: 'usage', message: "missing required argument 'id|slug'" } });
    const unknown = await box.cli(['bogus', '--json']);
    expect(unknown.code).toBe(2);
    expect(unknown.json()).toEqual({ error: { code: 'usage', message: "unknown command 'bogus'" } });
    expect((await box.cli(['--help', '--json'])).code).toBe(0);
  });
});
