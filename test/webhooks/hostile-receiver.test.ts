import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { runCli } from '../helpers/cli.js';
import { webhookWorld } from './setup.js';

// A receiver's answer is printed by the CLI; it must not reach the terminal as control sequences (issue 11).
const HOSTILE = 'ok\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIH4=\x07\rfaked line\u202e';
const SHOWN = 'ok\\x1b[2J\\x1b[H\\x1b]52;c;cm0gLXJmIH4=\\x07\\rfaked line\\u202e';
const ESC = /[\x1b\x07\r\u202e]/;

describe('text from a hostile receiver', () => {
  it('is printed escaped by svc webhook test, redeliver and articles unpublish', async () => {
    let status = 200;
    const w = await webhookWorld({ script: () => ({ status, raw: HOSTILE }) });
    const cli = (...args: string[]) => runCli([...args, '-w', w.ws.name], { env: w.d.env, cwd: w.d.dir });

    const ok = await cli('webhook', 'test');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(SHOWN);
    expect(ok.stdout).not.toMatch(ESC);

    status = 500;
    const failed = await cli('webhook', 'test');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`receiver answered: ${SHOWN}`);
    expect(failed.stderr).not.toMatch(ESC);
    // --json keeps the exact text (JSON escapes control characters itself).
    expect((await cli('webhook', 'test', '--json')).json().error.response).toBe(HOSTILE);

    status = 200;
    const a = await w.article();
    await publishArticle(w.d.app, w.ws, a.id);
    const [published] = await w.receiver.waitFor(4);
    status = 500;
    const again = await cli('webhook', 'redeliver', published.body.eventId);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('failed: HTTP 500');
    const unpublish = await cli('articles', 'unpublish', a.slug);
    expect(unpublish.code).toBe(1);
    expect(unpublish.stderr).toContain('HTTP 500: ok\\x1b[2J');
    expect(unpublish.stderr).not.toMatch(ESC);

    const log = await cli('webhook', 'deliveries');
    expect(log.code).toBe(0);
    expect(log.stdout).not.toMatch(ESC);
    const doctor = await cli('doctor');
    expect(doctor.stdout + doctor.stderr).not.toMatch(ESC);
  });
});
