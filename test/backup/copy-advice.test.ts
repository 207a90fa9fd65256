import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';
import { PG_ADMIN, pgAvailable } from './pg.js';

describe.runIf(await pgAvailable())('svc db copy while a daemon serves the SQLite file', () => {
  it('says the final copy is a --force copy after stopping the daemon, and warns when that copy runs while it still serves', async () => {
    const dir = tempDir();
    const env = { SVC_CONFIG: 'none', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent' };
    expect((await runCli(['workspaces', 'add', '--name', 'copied.example', '--website', 'https://copied.example'], { env, cwd: dir })).code).toBe(0);
    const to = await createPgDatabase(PG_ADMIN);
    const daemon = await serve(env, dir);
    const pid = daemon.child.pid;

    const first = await runCli(['db', 'copy', '--to', to], { env, cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(`A daemon (pid ${pid}) served ${dir}/svc.sqlite during this copy: what it wrote after the snapshot is not copied. To switch: stop it, run svc db copy --to ${to} --force once more (the final, complete copy)`);

    // The "final" copy while the daemon still serves: done (it may be a rehearsal), with a warning.
    const early = await runCli(['db', 'copy', '--to', to, '--force', '--yes'], { env, cwd: dir });
    expect(early.code, early.stderr).toBe(0);
    expect(early.stderr).toContain(`warning: the svc daemon (pid ${pid}) still serves ${dir}/svc.sqlite: what it writes after this copy's snapshot is not copied. For the final copy, stop it first, then run this again.`);

    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
    const final = await runCli(['db', 'copy', '--to', to, '--force', '--yes'], { env, cwd: dir });
    expect(final.code, final.stderr).toBe(0);
    expect(final.stderr).toBe('');
    expect(final.stdout).toContain(`If a daemon was serving ${dir}/svc.sqlite meanwhile`);
  }, 60_000);
});
