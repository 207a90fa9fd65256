import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

const SECRET = 'whsec_ListenListenListenListenListen1234';

function sign(raw: string, secret = SECRET): string {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;
}

/** Spawn `svc webhook listen` (the compiled binary) and wait for its "Listening" line. */
async function listen(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', '--secret', SECRET, ...args], { env: { PATH: process.env.PATH ?? '', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const deadline = Date.now() + 15_000;
  while (!/Listening .* on (http:\/\/\S+)\//.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`listen did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url: /on (http:\/\/\S+?)\/ /.exec(out)![1], output: () => out, exit };
}

const post = (url: string, raw: string, signature?: string) =>
  fetch(url, { method: 'POST', body: raw, headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Service-Signature': signature } : {}) } });

describe('svc webhook listen (spawned binary)', () => {
  it('verifies signatures against the raw body, answers { received, url } and stops cleanly on SIGTERM', async () => {
    const l = await listen(['--url-template', 'https://blog.example.com/{slug}']);
    const raw = JSON.stringify({ event: 'article.published', deliveryId: 'dlv_abc', eventId: 'evt_1', article: { id: 'art_1', slug: 'tea-tips' } });
    const ok = await post(l.url, raw, sign(raw));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: 'dlv_abc', url: 'https://blog.example.com/tea-tips' });

    const bad = await post(l.url, raw, sign(raw, 'whsec_wrongwrongwrongwrongwrongwrongwrong'));
    expect(bad.status).toBe(401);
    const tampered = await post(l.url, raw.replace('tea-tips', 'other'), sign(raw));
    expect(tampered.status).toBe(401);
    expect((await post(l.url, raw)).status).toBe(401);

    const testRaw = JSON.stringify({ event: 'test', deliveryId: 'dlv_t', article: { id: 'art_sample', slug: 'sample' } });
    expect(await (await post(l.url, testRaw, sign(testRaw))).json()).toEqual({ received: 'dlv_t' });

    l.child.kill('SIGTERM');
    expect(await l.exit).toBe(0);
    expect(l.output()).toContain('article.published  tea-tips  delivery=dlv_abc');
    expect(l.output()).toContain('REJECTED  bad signature');
  });

  it('answers valid deliveries with --fail-with', async () => {
    const l = await listen(['--fail-with', '503']);
    const raw = JSON.stringify({ event: 'article.updated', deliveryId: 'dlv_x', article: { id: 'a', slug: 's' } });
    expect((await post(l.url, raw, sign(raw))).status).toBe(503);
    l.child.kill('SIGINT');
    expect(await l.exit).toBe(0);
  });
});
