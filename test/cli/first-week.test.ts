import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { skipNotice } from '../helpers/skip-notice.js';
import { expectCleanError, initialised } from './sandbox.js';

// Issue 24, "Smaller": the rough edges of an operator's first week.
describe("an operator's first week (issue 24)", () => {
  it('GET / says what svc is and where the docs are (was a JSON 404); other paths still 404', async () => {
    const d = await startDaemon({ jobs: false });
    const res = await fetch(`${d.url}/`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ name: 'svc', endpoints: { contentApi: `${d.url}/api/v1/content/articles`, mcp: `${d.url}/api/mcp`, health: `${d.url}/healthz` } });
    expect(body.about).toContain('self-hosted');
    expect(body.docs).toContain('docs/content-api.md');
    expect((await fetch(`${d.url}/nothing-here`)).status).toBe(404);
    expect((await fetch(`${d.url}/`, { method: 'POST' })).status).toBe(404);
  });

  it('a content API request without a key: the spec message, and details saying no key was sent', async () => {
    const d = await startDaemon({ jobs: false });
    const none = await fetch(`${d.url}/api/v1/content/articles`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: 'invalid_key', message: 'Invalid blog key', keySent: false, detail: expect.stringContaining('No key was sent') } });
    const wrong = await fetch(`${d.url}/api/v1/content/articles`, { headers: { Authorization: 'Bearer svc_blog_wrong' } });
    expect(await wrong.json()).toEqual({ error: { code: 'invalid_key', message: 'Invalid blog key' } });
  });

  it('a backup name that is taken: the hint suggests a different name', async () => {
    const box = await initialised();
    const out = path.join(box.dir, 'backups', 'svc-2026-11-22.sqlite');
    expect((await box.spawn(['backup', '--out', out])).code).toBe(0);
    const again = await box.spawn(['backup', '--out', out]);
    expectCleanError(again, 1, 'already exists');
    const hint = again.stderr.split('\n').find((l) => l.startsWith('hint: '))!;
    expect(hint).toContain(`--out ${path.join(box.dir, 'backups')}/svc-$(date -u +%Y%m%dT%H%M%SZ).sqlite`);
    expect(hint).not.toContain('$(date +%F)');
  }, 120_000);

  it('svc workspaces show says what a plan means on a self-hosted server and how to change it', async () => {
    const box = await initialised();
    const show = await box.spawn(['workspaces', 'show']);
    expect(show.stdout).toMatch(/Plan:\s+free \(active\)\n\s+\(a label: this svc bills nothing; the allowances below cap each month/);
    expect(show.stdout).toContain('svc workspaces set --plan NAME --allowance articles=N,audits=N,keywords=N)');
  });

  it('npm test names the PostgreSQL tests it skips and how to run them (vitest globalSetup)', () => {
    expect(skipNotice({})).toContain('SVC_TEST_DATABASE_URL is not set');
    expect(skipNotice({})).toContain('To run them: SVC_TEST_DATABASE_URL=postgres://');
    expect(skipNotice({ SVC_TEST_DATABASE_URL: 'postgres://x' })).toBeUndefined();
    expect(readFileSync(path.resolve(import.meta.dirname, '../../vitest.config.ts'), 'utf8')).toMatch(/globalSetup: \[[^\]]*'test\/helpers\/skip-notice.ts'/);
  });
});
