import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/lib/log.js';
import { type CliResult, runCli, spawnCli } from '../helpers/cli.js';
import { freshEnv } from '../helpers/env.js';
import { afterFile } from '../helpers/cleanup.js';

export interface Sandbox {
  dir: string;
  env: Record<string, string>;
  /** svc in-process; `interactive: true` plays a terminal (answer with prompts.inject). */
  cli(args: string[], opts?: { stdin?: string; interactive?: boolean; env?: Record<string, string> }): Promise<CliResult>;
  /** The real binary as a subprocess (needs `npm run build`). */
  spawn(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** The same database through the services, to check what a command did. */
  app(): Promise<App>;
  /** `svc ... --json` that must succeed; returns the parsed output. */
  json<T = any>(args: string[]): Promise<T>;
}

/**
 * A fresh data directory (or PostgreSQL database) per call, shared by the CLI and the checks:
 * empty (the first command creates and migrates it), or with `migrated` a copy of the run's
 * migrated database (helpers/migrated-template.ts) for tests that are not about a first run.
 */
export async function sandbox(options: { migrated?: boolean } = {}): Promise<Sandbox> {
  const { dir, env } = await freshEnv({}, options);
  let app: App | undefined;
  afterFile(async () => app?.close());
  const cli: Sandbox['cli'] = (args, opts = {}) => runCli(args, { env: { ...env, ...opts.env }, cwd: dir, stdin: opts.stdin, interactive: opts.interactive });
  return {
    dir,
    env,
    cli,
    spawn: (args, opts = {}) => spawnCli(args, { env: { ...env, ...opts.env }, cwd: dir, stdin: opts.stdin }),
    async app() {
      app ??= await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('silent') });
      return app;
    },
    async json(args) {
      const r = await cli([...args, '--json']);
      if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
      return r.json();
    },
  };
}

/** A sandbox with `svc init` done (on a copy of the migrated database): one admin user and one workspace. */
export async function initialised(): Promise<Sandbox & { email: string; workspace: { id: string; name: string } }> {
  const box = await sandbox({ migrated: true });
  const r = await box.json(['init', '--email', 'owner@example.com', '--password', 'owner-password', '--website', 'https://example.com']);
  return { ...box, email: r.user.email, workspace: r.workspace };
}

/** Error output must be one message, never a stack trace. */
export function expectCleanError(r: CliResult, code: number, message: string | RegExp): void {
  const ok = r.code === code && (typeof message === 'string' ? r.stderr.includes(message) : message.test(r.stderr)) && !/\n\s+at /.test(r.stderr);
  if (!ok) throw new Error(`expected exit ${code} with ${String(message)} on stderr, got exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}
