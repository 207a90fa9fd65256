import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { migrateLatest, migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/log.js';
import { startHolder } from '../../src/webhooks/lease.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshConfig } from '../helpers/env.js';

const PACK = '2026-11-29-1600-pack-content-articles'; // exports breaksRunningDaemons
const LAST = '2026-11-30-1540-drop-content-tags-rank-index'; // does not
const log = createLogger('silent');

describe(`a migration that daemons of the previous release cannot run beside (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('is refused while a daemon beats, naming both, with nothing changed; applied once the daemon stopped cleanly, or when only a stale beat or a waiting command is left', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await createApp({ config, migrate: false, log });
    try {
      while ((await migrationStatus(app.db)).pending[0] !== PACK) await migrateStep(app.db, 'up');
      // An older daemon serving this database beats the way every daemon does.
      const daemon = await startHolder(app, 'daemon');

      const cli = await runCli(['migrate'], { env, cwd: dir });
      expect(cli.code).not.toBe(0);
      expect(cli.stderr).toContain('Refusing to migrate while svc daemons serve this database');
      expect(cli.stderr).toContain(PACK);
      expect(cli.stderr).toContain(daemon.id);
      expect(cli.stderr).toContain('Stop every svc daemon serving this database');
      // Starting this version migrates first: refused the same way.
      await expect(createApp({ config, log })).rejects.toMatchObject({ code: 'daemons_running', status: 409 });
      expect((await migrationStatus(app.db)).pending[0]).toBe(PACK);
      expect(await app.db.schema.hasColumn('content_articles', 'article_json')).toBe(true);

      await daemon.stop(); // a clean stop deletes its row
      const now = Date.now();
      const at = (ms: number) => new Date(now - ms).toISOString();
      await app.db('daemon_heartbeats').insert([
        // One killed 11 s ago left its row behind; a command waiting for one delivery is no daemon.
        { id: 'daemon_killed', kind: 'daemon', pid: 1, host: 'gone', started_at: at(60_000), seen_at: at(config.webhooks.heartbeatStaleAfter + 1_000) },
        { id: 'request_waiting', kind: 'request', pid: 1, host: 'here', started_at: at(0), seen_at: at(0) },
      ]);
      expect(await migrateLatest(app.db, { daemonsStaleAfter: config.webhooks.heartbeatStaleAfter })).toContain(PACK);
      expect(await app.db.schema.hasColumn('content_articles', 'article_json')).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('a pending migration they can run beside is applied while a daemon beats', async () => {
    const { config } = await freshConfig();
    const app = await createApp({ config, migrate: false, log });
    try {
      while ((await migrationStatus(app.db)).pending[0] !== LAST) await migrateStep(app.db, 'up');
      const daemon = await startHolder(app, 'daemon');
      try {
        expect(await migrateLatest(app.db, { daemonsStaleAfter: config.webhooks.heartbeatStaleAfter })).toEqual([LAST]);
      } finally {
        await daemon.stop();
      }
    } finally {
      await app.close();
    }
  });
});
