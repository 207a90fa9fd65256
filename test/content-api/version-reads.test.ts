import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';
import { runCli } from '../helpers/cli.js';
import { contentFixture } from './fixture.js';

// On SQLite the freshness check reads the database only when something was committed since the
// versions were read (the WAL header, one pread): cached GETs in a quiet daemon cost no query.
describe.skipIf(!!PG_URL)('content versions on SQLite', () => {
  it('are read again only after a commit, from this process or another', async () => {
    const f = await contentFixture({ jobs: false });
    const p = await f.publish({ title: 'Kept' });
    const reads: string[] = [];
    f.d.app.db.on('query', (q: { sql: string }) => {
      if (/content_version/.test(q.sql)) reads.push(q.sql);
    });
    expect((await f.api('/articles')).status).toBe(200);
    const afterFirst = reads.length;
    for (let i = 0; i < 5; i++) expect((await f.api(`/articles/${p.slug}`)).status).toBe(200);
    expect(reads).toHaveLength(afterFirst); // nothing committed: answered from memory

    // Another process commits (a new workspace): the next request reads, and sees what changed.
    const added = await runCli(['workspaces', 'add', '--name', 'second.example', '--website', 'https://second.example'], f.cli);
    expect(added.code, added.stderr).toBe(0);
    expect((await f.api('/articles')).status).toBe(200);
    expect(reads.length).toBeGreaterThan(afterFirst);
    // Unpublished by another process: gone on the very next request.
    expect((await runCli(['articles', 'unpublish', p.id, '--workspace', f.ws.id], f.cli)).code).toBe(0);
    expect((await f.api(`/articles/${p.slug}`)).status).toBe(404);
  });
});
