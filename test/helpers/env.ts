import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';

/** Set by .ci/run (and by hand) to run the whole suite against PostgreSQL too. */
export const PG_URL = process.env.SVC_TEST_DATABASE_URL;

/** A fresh temp dir, removed after the test file. */
export function tempDir(prefix = 'svc-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Environment for a fresh, empty database: a temp SQLite file, or (with SVC_TEST_DATABASE_URL)
 * a new PostgreSQL database dropped after the test file. Webhooks may target loopback receivers.
 */
export async function freshEnv(extra: Record<string, string> = {}): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = tempDir();
  const env: Record<string, string> = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', ...extra };
  if (PG_URL) env.SVC_DATABASE_URL = await createPgDatabase();
  return { dir, env };
}

/** Config for a fresh database, with optional key overrides (e.g. { 'webhooks.timeout': 200 }). */
export async function freshConfig(overrides: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}): Promise<{ dir: string; env: Record<string, string>; config: Config }> {
  const { dir, env } = await freshEnv(extraEnv);
  return { dir, env, config: loadConfig({ env, cwd: dir, overrides }) };
}

/** A new PostgreSQL database on the server of `adminUrl`, dropped after the test file. */
export async function createPgDatabase(adminUrl = PG_URL!): Promise<string> {
  const name = `svc_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  afterAll(async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
