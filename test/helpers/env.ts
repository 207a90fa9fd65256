import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { copySqliteTemplate, dropLater } from './migrated-template.js';
import { adminQuery } from './pg-admin.js';
import { afterFile } from './cleanup.js';
import { type TestRun, claimRun, heldElsewhere } from './pg-runs.js';

/** Set by .ci/run (and by hand) to run the whole suite against PostgreSQL too. */
export const PG_URL = process.env.SVC_TEST_DATABASE_URL;

/** A fresh temp dir, removed after the test file. */
export function tempDir(prefix = 'svc-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterFile(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let fileStateDir: string | undefined;

/**
 * `env` with a state directory of this test file's own unless it names one: a daemon a test
 * starts never writes its record where the machine's daemons do (/run/svc, ~/.local/state/svc),
 * and a command a test runs never reads theirs.
 */
export function withStateDir(env: Record<string, string>): Record<string, string> {
  if (env.SVC_STATE_DIR) return env;
  if (!fileStateDir) {
    fileStateDir = tempDir('svc-state-');
    afterFile(() => (fileStateDir = undefined));
  }
  return { SVC_STATE_DIR: fileStateDir, ...env };
}

/**
 * Environment for a fresh database: a temp SQLite file, or (with SVC_TEST_DATABASE_URL) a new
 * PostgreSQL database (dropped at the end of the run); empty, or with `migrated` a copy of the run's
 * migrated database (helpers/migrated-template.ts), for tests that are not about migrating.
 * Webhooks may target loopback receivers. No config file is read (SVC_CONFIG=none), and daemon
 * records live in a state directory of its own (SVC_STATE_DIR, inside the data directory).
 */
export async function freshEnv(extra: Record<string, string> = {}, options: { migrated?: boolean } = {}): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = tempDir();
  // SVC_CONFIG=none: no config file is read, not /etc/svc/config.yaml nor one in the working
  // directory; a test that writes its own names it (SVC_CONFIG or --config).
  const env: Record<string, string> = { SVC_CONFIG: 'none', SVC_DATA_DIR: dir, SVC_STATE_DIR: path.join(dir, 'state'), SVC_LOG_LEVEL: 'silent', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', ...extra };
  // Without the template (a vitest config without its globalSetup) the daemon migrates an empty one.
  if (PG_URL) env.SVC_DATABASE_URL = await createPgDatabase(PG_URL, (options.migrated && inject('pgTemplate')) || undefined);
  else if (options.migrated && inject('sqliteTemplate')) copySqliteTemplate(inject('sqliteTemplate'), dir);
  return { dir, env };
}

/** Config for a fresh database, with optional key overrides (e.g. { 'webhooks.timeout': 200 }). */
export async function freshConfig(overrides: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}): Promise<{ dir: string; env: Record<string, string>; config: Config }> {
  const { dir, env } = await freshEnv(extraEnv);
  return { dir, env, config: loadConfig({ env, cwd: dir, overrides }) };
}

/**
 * A new PostgreSQL database on the server of `adminUrl` (a copy of `template`, if given), dropped
 * at the end of the run (helpers/migrated-template.ts says why), or after the test file under a
 * vitest config without that globalSetup.
 */
export async function createPgDatabase(adminUrl = PG_URL!, template?: string): Promise<string> {
  const run = await runOn(adminUrl);
  const name = run.name(`${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`);
  await adminQuery(adminUrl, template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const dropList = inject('pgDropList');
  if (dropList) dropLater(dropList, adminUrl, name);
  else afterFile(() => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

let fileRun: Promise<TestRun> | undefined;

/**
 * The run that names a new database on the server of `adminUrl` (helpers/pg-runs.ts): the whole
 * run's, claimed by the globalSetup on SVC_TEST_DATABASE_URL's server; on another server, or under
 * a vitest config without that globalSetup, one of this file's own, held until its drops are done.
 */
function runOn(adminUrl: string): Promise<TestRun> {
  const whole = inject('pgRun');
  if (whole && PG_URL && new URL(PG_URL).host === new URL(adminUrl).host) {
    return Promise.resolve(heldElsewhere(whole));
  }
  if (!fileRun) {
    const claimed = claimRun(adminUrl);
    fileRun = claimed;
    // Registered before the file's drops, so it runs after them.
    afterFile(async () => {
      fileRun = undefined;
      await (await claimed).release();
    });
  }
  return fileRun;
}
