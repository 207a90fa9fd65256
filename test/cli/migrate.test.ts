import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import prompts from 'prompts';
import { migrateLatest, migrateStep } from '../../src/db/migrate.js';
import { expectCleanError, sandbox } from './sandbox.js';

const NAMES = readdirSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

describe('svc migrate', () => {
  it('--status lists pending, migrate applies them once, then is a no-op', async () => {
    const box = await sandbox();
    // An empty SQLite file: a missing one --status refuses to create (read-only-commands.test.ts).
    if (!box.env.SVC_DATABASE_URL) writeFileSync(path.join(box.dir, 'svc.sqlite'), '');
    expect(await box.json(['migrate', '--status'])).toMatchObject({ applied: [], pending: NAMES, unknown: [] });
    const human = await box.cli(['migrate', '--status']);
    // Which database and config file this command uses, and the daemons of the machine (none here), then the migrations.
    const database = box.env.SVC_DATABASE_URL ? `${box.env.SVC_DATABASE_URL} (SVC_DATABASE_URL)` : `${box.dir}/svc.sqlite (database.url is not set and SVC_DATA_DIR names its directory)`;
    expect(human.stdout).toBe(
      `database: ${database}\nconfig file: none (looked for --config, SVC_CONFIG, /etc/svc/config.yaml, ./config.yaml)\ndaemon: none running on this machine\n` +
        `${NAMES.map((n) => `pending  ${n}`).join('\n')}\n0 applied, ${NAMES.length} pending\n`,
    );

    expect(await box.json(['migrate'])).toEqual({ applied: NAMES });
    expect(await box.json(['migrate'])).toEqual({ applied: [] });
    expect((await box.cli(['migrate'])).stdout).toBe('Already up to date\n');
    expect(await box.json(['migrate', '--status'])).toMatchObject({ applied: NAMES, pending: [], unknown: [] });
  });

  it('--rollback undoes the last batch after confirmation, and never the install batch', async () => {
    const box = await sandbox();
    const none = await box.cli(['migrate', '--rollback']);
    // No SQLite file yet: said, and none created (an empty PostgreSQL database has nothing to undo).
    if (box.env.SVC_DATABASE_URL) expect(none.stdout).toBe('Nothing to roll back\n');
    else expectCleanError(none, 1, `There is no svc database at ${path.join(box.dir, 'svc.sqlite')} (database.url is not set and SVC_DATA_DIR names its directory): nothing to roll back`);
    await box.json(['migrate']);
    // The install is the last batch: refused, even with --yes, and every table stays.
    expectCleanError(await box.cli(['migrate', '--rollback', '--yes']), 1, /Refusing to roll back: the last batch of migrations is the install itself .* Nothing was changed\.\n.*svc restore FILE/s);
    expect(await box.json(['migrate', '--status'])).toMatchObject({ applied: NAMES, pending: [], unknown: [] });

    // An upgrade's batch (the newest migration alone) can be undone, with --yes or a yes on a terminal.
    const db = (await box.app()).db;
    await migrateStep(db, 'down');
    await migrateLatest(db);
    const last = NAMES[NAMES.length - 1];
    expectCleanError(await box.cli(['migrate', '--rollback']), 2, `Undo 1 migration (${last})? The tables and columns they added are dropped with their data. Refusing without --yes`);
    expect((await box.json(['migrate', '--status'])).pending).toEqual([]);
    prompts.inject([false]);
    expectCleanError(await box.cli(['migrate', '--rollback'], { interactive: true }), 2, 'Cancelled');
    expect(await box.json(['migrate', '--rollback', '--yes'])).toEqual({ rolledBack: [last] });
    expect((await box.json(['migrate', '--status'])).pending).toEqual([last]);
    await migrateLatest(db);
    prompts.inject([true]);
    expect((await box.cli(['migrate', '--rollback'], { interactive: true })).stdout).toBe(`rolled back  ${last}\n`);
  });
});
