import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serve } from '../helpers/serve.js';
import { expectCleanError, initialised } from './sandbox.js';

describe('the CLI knows the daemon it administers', () => {
  it('the daemon records what it serves; blog-key and api-keys print the address it really serves and warn that their own differs', async () => {
    const box = await initialised();
    // As the README's unit once did: the public address only in the daemon's environment.
    const daemon = await serve({ ...box.env, SVC_BASE_URL: 'https://svc.example.org' }, box.dir);
    const [recordFile] = readdirSync(box.dir).filter((f) => /^daemon-\d+\.json$/.test(f));
    const record = JSON.parse(readFileSync(path.join(box.dir, recordFile), 'utf8'));
    expect(record).toMatchObject({ pid: daemon.child.pid, served: { host: '127.0.0.1', port: daemon.port, baseUrl: 'https://svc.example.org' }, configFile: null });

    const generated = await box.cli(['blog-key', 'generate']);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toContain('to https://svc.example.org/api/v1/content');
    expect(generated.stderr).toContain(
      "warning: the running daemon serves https://svc.example.org, but this command's server.baseUrl is http://127.0.0.1:8080 (the default server.baseUrl); printing the daemon's.",
    );
    expect((await box.json(['blog-key', 'show'])).endpoint).toBe('https://svc.example.org/api/v1/content');
    const apiKey = await box.cli(['api-keys', 'create', '--name', 'agent', '--scopes', 'read']);
    expect(apiKey.code, apiKey.stderr).toBe(0);
    expect(apiKey.stdout).toContain('to https://svc.example.org/api/mcp');
    // With the daemon's own setting, nothing to warn about.
    const same = await box.cli(['blog-key', 'show'], { env: { SVC_BASE_URL: 'https://svc.example.org' } });
    expect(same.stderr).toBe('');
    expect(same.stdout).toContain('endpoint: https://svc.example.org/api/v1/content');
  });

  it('a command that would create a new database while the daemon serves another refuses, naming the one served', async () => {
    const box = await initialised();
    await serve(box.env, box.dir);
    // Without the daemon's database settings (on PostgreSQL: no SVC_DATABASE_URL), the command would start an empty SQLite file.
    const stray = await box.cli(['workspaces', 'list'], { env: { SVC_DATABASE_URL: '', SVC_DATABASE_FILENAME: 'stray.sqlite' } });
    expectCleanError(stray, 1, `error: The svc daemon of ${box.dir} (pid `);
    expect(stray.stderr).toContain(`but this command would create a new SQLite database ${path.join(box.dir, 'stray.sqlite')} (SVC_DATABASE_FILENAME).`);
    expect(stray.stderr).toContain('hint: Give this command the daemon\'s database: database.url in a config file both read');
    expect(existsSync(path.join(box.dir, 'stray.sqlite'))).toBe(false);
    // The database the daemon serves is still reached as before.
    expect((await box.json(['workspaces', 'list'])).map((w: { name: string }) => w.name)).toEqual(['example.com']);
  });
});
