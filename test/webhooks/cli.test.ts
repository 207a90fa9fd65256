import { describe, expect, it } from 'vitest';
import { publishArticle } from '../../src/publishing/publish.js';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { independentVerify, startReceiver } from './receiver.js';
import { FAST } from './setup.js';

describe('svc webhook set / show / enable / disable / rotate-secret / remove', () => {
  it('manages the webhook and signs with both secrets during a rotation', async () => {
    const d = await startDaemon({ overrides: FAST });
    const receiver = await startReceiver();
    const ws = await seedWorkspace(d.app);
    const cli = (...args: string[]) => runCli([...args, '-w', ws.name], { env: d.env, cwd: d.dir });

    const set = await cli('webhook', 'set', '--url', receiver.url, '--json');
    expect(set.code).toBe(0);
    const secret = set.json().secret as string;
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);
    expect(set.json()).toMatchObject({ url: receiver.url, enabled: true });

    const show = await cli('webhook', 'show');
    expect(show.stdout).toContain(`url:      ${receiver.url}`);
    expect(show.stdout).toContain('state:    enabled');
    expect(show.stdout).not.toContain(secret);
    expect(show.stdout).toMatch(/daemon:   daemon_\w+ \(pid \d+ on .*, seen /);
    expect((await cli('webhook', 'show', '--show-secret', '--json')).json().secret).toBe(secret);

    // Changing the URL keeps the secret; --secret sets one; a malformed one is refused.
    expect((await cli('webhook', 'set', '--url', receiver.url, '--json')).json().secret).toBeNull();
    const own = `whsec_${'a1B2'.repeat(9)}`;
    expect((await cli('webhook', 'set', '--url', receiver.url, '--secret', own, '--json')).json().secret).toBe(own);
    const badSecret = await cli('webhook', 'set', '--url', receiver.url, '--secret', 'hunter2');
    expect(badSecret.code).toBe(1);
    expect(badSecret.stderr).toContain('A signing secret is "whsec_" followed by 32 to 194 letters and digits');
    const badUrl = await cli('webhook', 'set', '--url', 'ftp://example.com/x');
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('Webhook URLs must use http or https, not ftp');

    const rotated = await cli('webhook', 'rotate-secret', '--grace', '1h', '--yes', '--json');
    const fresh = rotated.json().secret as string;
    expect(fresh).not.toBe(own);
    expect(rotated.json().previousSecretUntil).toMatch(/Z$/);
    const a = await seedArticle(d.app, ws);
    await publishArticle(d.app, ws, a.id);
    const [r] = await receiver.waitFor(1);
    const sig = r.headers['x-service-signature'] as string;
    expect(sig.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(independentVerify(r.raw, sig, fresh)).toBe(true);
    expect(independentVerify(r.raw, sig, own)).toBe(true);
    // Newest first.
    const first = sig.split(',')[1];
    expect(independentVerify(r.raw, `${sig.split(',')[0]},${first}`, fresh)).toBe(true);

    const disabled = await cli('webhook', 'disable', '--json');
    expect(disabled.json()).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('Disabled by an operator') });
    expect((await cli('webhook', 'show')).stdout).toContain('DISABLED: Disabled by an operator');
    expect((await cli('webhook', 'enable', '--json')).json()).toMatchObject({ enabled: true, disabledReason: null });

    const noYes = await cli('webhook', 'remove');
    expect(noYes.code).toBe(2);
    expect((await cli('webhook', 'remove', '--yes')).code).toBe(0);
    const gone = await cli('webhook', 'show');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('error: Webhook not found');
  });

  it('says whether a running daemon delivers a queued event', async () => {
    const d = await startDaemon({ overrides: FAST });
    const receiver = await startReceiver();
    const ws = await seedWorkspace(d.app);
    await runCli(['webhook', 'set', '--url', receiver.url, '-w', ws.name], { env: d.env, cwd: d.dir });
    const a = await seedArticle(d.app, ws);
    const res = await runCli(['articles', 'publish', a.slug, '-w', ws.name], { env: d.env, cwd: d.dir });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/the running daemon \(pid \d+\) delivers it now/);
    await receiver.waitFor(1);
  });
});

describe('SSRF protection', () => {
  it('refuses loopback and private targets without the allow setting and says how to allow them', async () => {
    const d = await startDaemon({ env: { SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' } });
    const ws = await seedWorkspace(d.app);
    for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]:8080/', 'http://localhost:3000/', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/']) {
      const res = await runCli(['webhook', 'set', '--url', url, '-w', ws.name], { env: d.env, cwd: d.dir });
      expect(res.code, url).toBe(1);
      expect(res.stderr).toContain('it is a loopback or private-network address');
      expect(res.stderr).toContain('hint: To allow it');
      expect(res.stderr).toContain('SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true');
      expect(res.stderr).toContain('webhooks.allowedHosts');
    }
    // An exact host allow-list lets one name through.
    const allowed = await runCli(['webhook', 'set', '--url', 'http://localhost:3000/', '-w', ws.name], { env: { ...d.env, SVC_WEBHOOKS_ALLOWED_HOSTS: 'localhost' }, cwd: d.dir });
    expect(allowed.code).toBe(0);
  });

  it('checks the address actually connected to: a name resolving to loopback is refused at delivery', async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    // The webhook was set while private targets were allowed; the daemon runs without the setting.
    const d = await startDaemon({ overrides: FAST, env: { SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' } });
    const ws = await seedWorkspace(d.app);
    const set = await runCli(['webhook', 'set', '--url', `http://localhost:${port}/hooks`, '-w', ws.name], { env: { ...d.env, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, cwd: d.dir });
    expect(set.code).toBe(0);
    const test = await runCli(['webhook', 'test', '-w', ws.name, '--json'], { env: d.env, cwd: d.dir });
    expect(test.code).toBe(1);
    expect(test.json().error.message).toContain('Refusing to send webhooks to localhost');
    await publishArticle(d.app, ws, (await seedArticle(d.app, ws)).id);
    const log = async () => (await runCli(['webhook', 'deliveries', '--json', '-w', ws.name], { env: d.env, cwd: d.dir })).json() as Array<{ event: string; error: string }>;
    const deadline = Date.now() + 10_000;
    while (!(await log()).some((x) => x.event === 'article.published') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await log()).find((x) => x.event === 'article.published')?.error).toMatch(/Refusing to send webhooks to localhost: .*\(127\.0\.0\.1|::1\)/);
    expect(receiver.received).toHaveLength(0);
  });
});
