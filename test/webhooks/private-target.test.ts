import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshEnv } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

// `webhook set` to a loopback receiver works when the CLI allows private networks; the daemon
// delivers there only with the setting too, read when it starts (issue 24): the CLI says so.
describe('webhook set to a loopback receiver says what the daemon needs', () => {
  it('no daemon: a note that the daemon needs the setting and reads it at start', async () => {
    const { dir, env } = await freshEnv();
    expect((await runCli(['workspaces', 'add', '--name', 'a.example', '--website', 'https://a.example'], { env, cwd: dir })).code).toBe(0);
    const r = await runCli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('note: 127.0.0.1 is a loopback or private-network address: the daemon delivers there only if it runs with webhooks.allowPrivateNetworks: true');
    expect(r.stderr).toContain('It reads its settings when it starts: restart it after changing them.');
    const pub = await runCli(['webhook', 'set', '--url', 'https://hooks.example.com/svc'], { env, cwd: dir });
    expect(pub.code, pub.stderr).toBe(0);
    expect(pub.stderr).not.toMatch(/loopback|private/);
  });

  it('a running daemon without the setting: a warning naming it; with the setting: nothing to say', async () => {
    const { dir, env } = await freshEnv();
    expect((await runCli(['workspaces', 'add', '--name', 'a.example', '--website', 'https://a.example'], { env, cwd: dir })).code).toBe(0);
    const strict = await serve({ ...env, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' }, dir);
    const r = await runCli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: the running daemon (pid ${strict.child.pid}) does not allow loopback or private-network receivers: it will refuse to deliver to 127.0.0.1.`);
    strict.child.kill('SIGTERM');
    expect((await strict.exited).code).toBe(0);

    const allowing = await serve(env, dir);
    const again = await runCli(['webhook', 'set', '--url', 'http://127.0.0.1:9/hook'], { env, cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    allowing.child.kill('SIGTERM');
    await allowing.exited;
  }, 60_000);
});
