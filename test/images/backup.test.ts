import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addImage } from '../../src/images/service.js';
import { runCli } from '../helpers/cli.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { seedWorkspace } from '../helpers/seed.js';
import { PG_ADMIN, pgAvailable } from '../backup/pg.js';
import { png } from './png.js';

// A SQLite installation whatever engine the suite runs on: backup, restore and `svc db copy` start from one.
const sqliteEnv = (dir: string) => ({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent' });

async function served(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('images are in every backup', () => {
  it('svc backup and svc restore keep the images byte for byte, and svc db copy carries them into PostgreSQL (bytea), more than one copy batch of them', async () => {
    const dir = tempDir();
    const src = await startDaemonOn(sqliteEnv(dir), dir, {}, false);
    const ws = await seedWorkspace(src.app);
    const images = Array.from({ length: 9 }, (_, i) => png(20 + i, 10, i));
    const paths: string[] = [];
    for (const [i, b] of images.entries()) paths.push(new URL((await addImage(src.app, ws, b, `image ${i}`)).url).pathname);

    const file = path.join(tempDir(), 'b.sqlite');
    const backup = await runCli(['backup', '--out', file], { env: sqliteEnv(dir), cwd: dir });
    expect(backup.code, backup.stderr).toBe(0);
    const fresh = tempDir();
    const restore = await runCli(['restore', file, '--yes'], { env: sqliteEnv(fresh), cwd: fresh });
    expect(restore.code, restore.stderr).toBe(0);
    const restored = await startDaemonOn(sqliteEnv(fresh), fresh, {}, false);
    for (const [i, p] of paths.entries()) expect(await served(restored.url + p)).toEqual({ status: 200, type: 'image/png', bytes: images[i] });

    if (!(await pgAvailable())) return;
    const to = await createPgDatabase(PG_ADMIN);
    const copy = await runCli(['db', 'copy', '--to', to, '--json'], { env: sqliteEnv(dir), cwd: dir });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.json().tables).toContainEqual({ table: 'images', rows: 9 });
    const pgDir = tempDir();
    const onPg = await startDaemonOn({ ...sqliteEnv(pgDir), SVC_DATABASE_URL: to }, pgDir, {}, false);
    for (const [i, p] of paths.entries()) expect(await served(onPg.url + p)).toEqual({ status: 200, type: 'image/png', bytes: images[i] });
  }, 120_000);
});
