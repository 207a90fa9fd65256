import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { expectCleanError, initialised, sandbox } from './sandbox.js';

describe('svc workspaces', () => {
  it('add with every flag, list, show', async () => {
    const box = await sandbox();
    const ws = await box.json(['workspaces', 'add', '--name', 'acme.example', '--website', 'https://acme.example', '--site-url', 'https://blog.acme.example', '--content-path', 'articles/', '--plan', 'pro']);
    expect(ws).toMatchObject({
      id: expect.stringMatching(/^ws_/),
      name: 'acme.example',
      websiteUrl: 'https://acme.example',
      siteUrl: 'https://blog.acme.example',
      contentPath: '/articles',
      plan: 'pro',
      billingStatus: 'active',
      graceUntil: null,
      autoPublish: false,
    });
    expect(await box.json(['workspaces', 'list'])).toEqual([ws]);
    const list = await box.cli(['workspaces', 'list']);
    expect(list.stdout).toMatch(/^ID\s+NAME\s+WEBSITE URL\s+PLAN\s+BILLING STATUS\s+AUTO PUBLISH\nws_\w+\s+acme\.example\s+https:\/\/acme\.example\s+pro\s+active\s+off\n$/);

    const shown = await box.json(['workspaces', 'show', 'acme.example']);
    expect(shown).toMatchObject({ ...ws, subscriptionLapsed: false, connectors: [], members: [] });
    expect(shown.usage).toEqual([
      { kind: 'articles', label: 'Articles', used: 0, allowed: ws.allowances.articles },
      { kind: 'audits', label: 'Audits', used: 0, allowed: ws.allowances.audits },
      { kind: 'keywords', label: 'Keyword lookups', used: 0, allowed: ws.allowances.keywords },
    ]);
    // By --workspace, by id, and implied when there is only one.
    expect((await box.json(['workspaces', 'show', '-w', ws.id])).id).toBe(ws.id);
    const human = await box.cli(['workspaces', 'show']);
    expect(human.stdout).toContain(`acme.example (${ws.id})\n  Website:       https://acme.example\n  Site URL:      https://blog.acme.example\n  Content path:  /articles`);
  });

  it('add names the workspace after the website host by default', async () => {
    const box = await sandbox();
    expect((await box.json(['workspaces', 'add', '--website', 'https://www.example.org/'])).name).toBe('www.example.org');
  });

  it('set changes every setting', async () => {
    const box = await initialised();
    const w = await box.json([
      'workspaces', 'set', '--workspace', 'example.com',
      '--name', 'renamed.example', '--website', 'https://renamed.example', '--site-url', 'https://blog.renamed.example',
      '--content-path', '/news', '--plan', 'business', '--billing-status', 'past_due', '--grace-until', '2030-01-02T03:04:05+02:00',
      '--auto-publish', 'on', '--allowance', 'articles=20,audits=100,keywords=500',
    ]);
    expect(w).toMatchObject({
      id: box.workspace.id,
      name: 'renamed.example',
      websiteUrl: 'https://renamed.example',
      siteUrl: 'https://blog.renamed.example',
      contentPath: '/news',
      plan: 'business',
      billingStatus: 'past_due',
      graceUntil: '2030-01-02T01:04:05.000Z',
      autoPublish: true,
      allowances: { articles: 20, audits: 100, keywords: 500 },
    });
    const shown = await box.json(['workspaces', 'show', 'renamed.example']);
    expect(shown).toMatchObject({ billingStatus: 'past_due', subscriptionLapsed: false, autoPublish: true });

    // "" clears the site URL and the grace end; a partial allowance list changes only those kinds.
    const cleared = await box.json(['workspaces', 'set', '--site-url', '', '--grace-until', '', '--billing-status', 'lapsed', '--auto-publish', 'off', '--allowance', 'audits=0']);
    expect(cleared).toMatchObject({ siteUrl: null, graceUntil: null, billingStatus: 'lapsed', autoPublish: false, allowances: { articles: 20, audits: 0, keywords: 500 } });
    expect((await box.json(['workspaces', 'show'])).subscriptionLapsed).toBe(true);
    const human = await box.cli(['workspaces', 'set', '--billing-status', 'active']);
    expect(human.stdout).toBe('Updated workspace renamed.example\n');
  });

  it('past_due after the grace end counts as lapsed', async () => {
    const box = await initialised();
    await box.json(['workspaces', 'set', '--billing-status', 'past_due', '--grace-until', '2000-01-01T00:00:00Z']);
    expect((await box.json(['workspaces', 'show'])).subscriptionLapsed).toBe(true);
  });

  it('refuses bad input with a clear message', async () => {
    const box = await initialised();
    const set = (...args: string[]) => box.cli(['workspaces', 'set', ...args]);
    expectCleanError(await set('--billing-status', 'overdue'), 1, 'error: Invalid workspace settings: billingStatus: billing status must be active, past_due or lapsed');
    expectCleanError(await set('--grace-until', 'next tuesday'), 1, 'graceUntil: grace end: "next tuesday" is not an ISO 8601 date-time (e.g. 2026-12-01T09:00:00Z)');
    expectCleanError(await set('--grace-until', '2030-01-02T03:04:05'), 1, 'graceUntil: grace end: "2030-01-02T03:04:05" has no time zone: add Z for UTC or an offset');
    expectCleanError(await set('--auto-publish', 'maybe'), 2, 'error: --auto-publish takes on or off, not "maybe"');
    expectCleanError(await set('--allowance', 'articles=many'), 2, 'error: --allowance: "articles=many" is not kind=N');
    expectCleanError(await set('--allowance', 'posts=3'), 2, 'error: --allowance: "posts=3" is not kind=N');
    expectCleanError(await set('--website', 'ftp://example.com'), 1, 'website must be an http(s) URL, e.g. https://example.com');
    expectCleanError(await set('--site-url', 'not a url'), 1, 'site URL must be an http(s) URL');
    expectCleanError(await set('--content-path', '/blog?x=1'), 1, 'content path may hold only letters, digits');
    expectCleanError(await set(), 2, 'error: Nothing to change');
    expectCleanError(await set('-w', 'nope.example', '--plan', 'pro'), 1, 'error: Workspace "nope.example" not found');
    expectCleanError(await box.cli(['workspaces', 'show', 'nope.example']), 1, 'error: Workspace "nope.example" not found');

    expectCleanError(await box.cli(['workspaces', 'add', '--name', 'example.com', '--website', 'https://example.com']), 1, 'error: A workspace named "example.com" already exists');
    expectCleanError(await box.cli(['workspaces', 'add', '--name', 'x', '--website', 'example.com']), 1, 'website must be an http(s) URL');
    expectCleanError(await box.cli(['workspaces', 'add', '--name', 'x']), 2, 'error: Missing --website');
    await box.json(['workspaces', 'add', '--name', 'other.example', '--website', 'https://other.example']);
    expectCleanError(await box.cli(['workspaces', 'set', '-w', 'example.com', '--name', 'other.example']), 1, 'error: A workspace named "other.example" already exists');
    expectCleanError(await set('--plan', 'pro'), 2, 'There are 2 workspaces: say which with --workspace ID|NAME');
  });

  it('with no workspace at all, says how to create one', async () => {
    const box = await sandbox();
    expect((await box.cli(['migrate'])).code).toBe(0);
    expectCleanError(await box.cli(['workspaces', 'show']), 1, 'error: Workspace not found\nhint: Create one first: svc init');
  });

  it('add prompts for the website and name on a terminal', async () => {
    const box = await sandbox();
    prompts.inject(['https://typed.example', 'typed.example']);
    const r = await box.cli(['workspaces', 'add', '--json'], { interactive: true });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ name: 'typed.example', websiteUrl: 'https://typed.example' });
  });
});
