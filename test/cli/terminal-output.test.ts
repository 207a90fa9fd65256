import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { pageLine } from '../../src/cli/articles.js';
import { createLogger } from '../../src/lib/log.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { until } from '../helpers/serve.js';
import { beforeExit, exitOf } from '../helpers/settle.js';
import { expectCleanError, initialised, sandbox } from './sandbox.js';

// Issue 24, "a terminal that reads well": the real binary as a subprocess.
describe('terminal output (issue 24)', () => {
  it('a mistyped command: "did you mean", exit 2; with --json only JSON on stdout and nothing on stderr', async () => {
    const box = await sandbox();
    const top = await box.spawn(['artcles']);
    expectCleanError(top, 2, "error: unknown command 'artcles'\n(Did you mean articles?)");
    const sub = await box.spawn(['articles', 'lsit']);
    expectCleanError(sub, 2, "error: unknown command 'lsit'\n(Did you mean list?)");
    const json = await box.spawn(['artcles', '--json']);
    expect(json).toMatchObject({ code: 2, stderr: '' });
    expect(json.json()).toEqual({ error: { code: 'usage', message: "unknown command 'artcles'", suggestion: 'articles' } });
    const subJson = await box.spawn(['articles', 'lsit', '--json']);
    expect(subJson).toMatchObject({ code: 2, stderr: '' });
    expect(subJson.json().error.code).toBe('usage');
    // A runtime failure: exit 1, the same `error:` prefix; with --json stderr stays empty.
    expect((await box.spawn(['migrate'])).code).toBe(0);
    expectCleanError(await box.spawn(['articles', 'list', '-w', 'nope.example']), 1, /^error: Workspace "nope.example" not found/);
    expect(await box.spawn(['articles', 'list', '-w', 'nope.example', '--json'])).toMatchObject({ code: 1, stderr: '' });
  }, 120_000);

  it('error: and warning: in colour only when the terminal supports it, never with NO_COLOR', async () => {
    const box = await sandbox();
    expect((await box.spawn(['artcles'])).stderr).not.toContain('\x1b[');
    const forced = await box.spawn(['artcles'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stderr.startsWith('\x1b[1m\x1b[31merror:\x1b[39m\x1b[22m unknown command')).toBe(true);
    expect((await box.spawn(['artcles'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stderr).toMatch(/^error: unknown command/);
  }, 120_000);

  it('articles list: words as headers, "1-2 of 3", a scheduled-time column for scheduled articles', async () => {
    const box = await initialised();
    for (const n of [1, 2, 3]) writeFileSync(path.join(box.dir, `p${n}.md`), `---\ntitle: Post ${n}\n---\nBody\n`);
    // Setting up runs in-process (box.cli, the same code): only the output checked needs the binary.
    expect((await box.cli(['articles', 'import', 'p1.md', 'p2.md', 'p3.md'])).code).toBe(0);
    const page = await box.spawn(['articles', 'list', '--limit', '2']);
    expect(page.stdout).toMatch(/^ID\s+SLUG\s+STATUS\s+CONTENT TYPE\s+TITLE\s+UPDATED AT\n/);
    expect(page.stdout.trimEnd().split('\n').at(-1)).toBe('1-2 of 3 articles; --limit/--offset show others');
    expect((await box.spawn(['articles', 'list'])).stdout.trimEnd().split('\n').at(-1)).toBe('3 articles');
    expect((await box.cli(['articles', 'schedule', 'p2', '--at', '2030-01-02T03:04:00Z'])).code).toBe(0);
    const scheduled = await box.spawn(['articles', 'list', '--status', 'scheduled']);
    expect(scheduled.stdout).toMatch(/^ID\s+SLUG\s+STATUS\s+SCHEDULED FOR \(UTC\)\s+CONTENT TYPE/);
    expect(scheduled.stdout).toMatch(/p2\s+scheduled\s+2030-01-02 03:04\s+BLOG_POST/);
    expect(pageLine(50, 4005, 0)).toBe('1-50 of 4,005 articles; --limit/--offset show others');
    expect(pageLine(0, 4005, 5000)).toBe('none from --offset 5,000: there are 4,005 articles');
  }, 120_000);

  it('the publish table keeps where each article went; webhook test prints no log line; deliveries fit 80 columns', async () => {
    const box = await initialised();
    for (const n of [1, 2]) writeFileSync(path.join(box.dir, `a-rather-long-slug-for-post-number-${n}.md`), `---\ntitle: Post ${n}\n---\nBody\n`);
    // Setting up runs in-process (box.cli, the same code): only the output checked needs the binary.
    expect((await box.cli(['articles', 'import', 'a-rather-long-slug-for-post-number-1.md', 'a-rather-long-slug-for-post-number-2.md'])).code).toBe(0);
    expect((await box.cli(['blog-key', 'generate'])).code).toBe(0);
    // A loopback port nothing listens on: every delivery fails with "connection refused".
    expect((await box.cli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'])).code).toBe(0);
    const published = await box.spawn(['articles', 'publish', '--all-drafts']);
    expect(published.stdout).toMatch(/SLUG\s+TO\s+ID\na-rather-long-slug-for-post-number-\d\s+headless, webhook: published\s+art_/);

    const test = await box.spawn(['webhook', 'test']);
    expectCleanError(test, 1, /^error: Test delivery to http:\/\/127\.0\.0\.1:9\/hook failed: /);
    expect(test.stderr).not.toContain('"level"');
    for (let i = 0; i < 2; i++) expect((await box.cli(['webhook', 'test'])).code).toBe(1); // more deliveries for the table
    const deliveries = await box.spawn(['webhook', 'deliveries']);
    const lines = deliveries.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHEN \(UTC\)\s+EVENT\s+TRY\s+HTTP\s+RESULT\s+ID$/);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^\d\d-\d\d \d\d:\d\d\s+test\s+#1\s+-\s+connection refused\s+dlv_\w+$/);
  }, 120_000);
});

describe('the daemon log (issue 24): human lines on a terminal, JSON lines elsewhere', () => {
  const capture = (tty: boolean) => {
    const stream = Object.assign(new PassThrough(), { isTTY: tty });
    let text = '';
    stream.on('data', (d) => (text += d));
    return { stream, text: () => text };
  };

  it('in-process: the same entry as a human line with a local time on a TTY, as JSON with epoch ms otherwise', () => {
    const tty = capture(true);
    createLogger('info', tty.stream).info({ requestId: 'req_1', body: { password: 'hunter22' } }, 'request done');
    expect(tty.text()).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: request done\n\s+requestId: "req_1"\n\s+body: \{\n\s+"password": "\[redacted\]"\n\s+\}\n$/);
    const pipe = capture(false);
    createLogger('info', pipe.stream).info({ requestId: 'req_1' }, 'request done');
    expect(JSON.parse(pipe.text())).toEqual({ level: 30, time: expect.any(Number), requestId: 'req_1', msg: 'request done' });
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('svc serve on a real terminal (script(1) gives it one) logs human lines', async () => {
    // In a directory of its own with no config file: never the repository's (or /etc/svc's) config.yaml.
    const cwd = tempDir('svc-tty-');
    // timeout(1) stops the daemon if the test does not: it does once the daemon has said it
    // listens and logged a line, with SIGINT to the pid its record in the state directory names.
    const child = spawn('script', ['-qec', `timeout -s INT 30 ${process.execPath} ${BIN} serve --port 0`, '/dev/null'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG: 'none', SVC_DATA_DIR: 'data', SVC_STATE_DIR: 'state', NO_COLOR: '1', TERM: 'xterm' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.end();
    const ended = exitOf(child);
    const listening = /listening on http:\/\/127\.0\.0\.1:\d+/;
    const human = /\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: /;
    await beforeExit(until(() => listening.test(out) && human.test(out), 20_000, 'the daemon listening and logging a line'), child, 'svc serve on a terminal', () => out);
    const record = readdirSync(path.join(cwd, 'state')).find((f) => /^daemon-\d+\.json$/.test(f));
    expect(record, `no daemon record in ${cwd}/state; the daemon said:\n${out}`).toBeDefined();
    process.kill(Number(/\d+/.exec(record!)![0]), 'SIGINT');
    await ended;
    expect(out).toMatch(listening);
    expect(out).toMatch(human);
    expect(out).not.toContain('"level":30');
  }, 60_000);
});
