import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { serve } from '../helpers/serve.js';

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe.skipIf(Boolean(PG_URL))('files svc creates are private to its user', () => {
  it('under umask 000: the data and state directories are 0700, the database, its -wal and -shm, the lock files and the daemon record 0600', async () => {
    const { dir, env } = await freshEnv();
    const dataDir = path.join(dir, 'var', 'svc');
    const svc = await serve({ ...env, SVC_DATA_DIR: dataDir, SVC_STATE_DIR: path.join(dir, 'run', 'svc') }, dir, { umask: '000' });
    try {
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
      expect({ var: mode(path.join(dir, 'var')), data: mode(dataDir) }).toEqual({ var: '700', data: '700' });
      const files = readdirSync(dataDir).sort();
      expect(files).toEqual(['svc.sqlite', 'svc.sqlite-daemon.lock', 'svc.sqlite-migrate.lock', 'svc.sqlite-shm', 'svc.sqlite-wal']);
      expect(Object.fromEntries(files.map((f) => [f, mode(path.join(dataDir, f))]))).toEqual(Object.fromEntries(files.map((f) => [f, '600'])));
      const stateDir = path.join(dir, 'run', 'svc');
      expect({ state: mode(stateDir), record: mode(path.join(stateDir, `daemon-${svc.child.pid}.json`)) }).toEqual({ state: '700', record: '600' });
    } finally {
      svc.child.kill('SIGTERM');
      await svc.exited;
    }
  }, 60_000);
});
