import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { serve } from '../helpers/serve.js';
import { sandbox } from './sandbox.js';

// What a deployed checkout would have: a config.yaml that points at the production database.
const PRODUCTION = 'database:\n  url: postgres://svc:secret@127.0.0.1:9/production\nserver:\n  port: 1\n';

describe('the test harness is isolated from the machine it runs on', () => {
  it('no SVC_* setting of the environment reaches a test (only the suite\'s SVC_TEST_* switches)', () => {
    expect(Object.keys(process.env).filter((name) => name.startsWith('SVC_') && !name.startsWith('SVC_TEST_'))).toEqual([]);
  });

  it('a config.yaml in the working directory the harness uses changes nothing: CLI in-process, the binary, svc serve', async () => {
    const box = await sandbox();
    writeFileSync(path.join(box.dir, 'config.yaml'), PRODUCTION);
    expect(loadConfig({ env: box.env, cwd: box.dir }).source).toBeNull();
    const added = await box.cli(['workspaces', 'add', '--name', 'isolated.example', '--website', 'https://isolated.example']);
    expect(added.code, added.stderr).toBe(0);
    const listed = await box.spawn(['workspaces', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json().map((w: { name: string }) => w.name)).toEqual(['isolated.example']);
    const daemon = await serve(box.env, box.dir);
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
  });
});
