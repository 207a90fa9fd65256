import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';

/** The program `name` on the PATH given, or null. */
export function findProgram(name: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The connection without its password, which goes to pg_dump in PGPASSWORD: a password on the
 * command line would show in `ps` to every user of the machine.
 */
export function splitPassword(url: string): { url: string; password?: string } {
  const u = new URL(url);
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  u.password = '';
  return { url: u.toString(), password };
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command an operator runs where pg_dump is installed (the password left to PGPASSWORD or ~/.pgpass). */
export const pgDumpCommand = (url: string, out: string) =>
  `pg_dump --format=custom --no-owner --file=${quote(out)} --dbname=${quote(splitPassword(url).url)}`;

export const pgDumpMissing = (url: string, out: string) =>
  new AppError('pg_dump_missing', 424, `pg_dump is not installed here (not on PATH), so svc cannot back up PostgreSQL itself. Run:\n  ${pgDumpCommand(url, out)}`, {
    hint: 'Install the PostgreSQL client tools (Debian/Ubuntu: apt install postgresql-client, the server\'s major version or newer), or run the command above where they are; PGPASSWORD or ~/.pgpass supplies the password.',
    details: { command: pgDumpCommand(url, out) },
  });

/** The deadlines of a PostgreSQL client program: connecting (libpq's PGCONNECT_TIMEOUT, whole seconds, at least 2) and the whole run. */
export interface PgToolDeadlines {
  connectTimeoutMs: number;
  timeoutMs: number;
  /** The config key (and its variable) named when the whole run is cut. */
  timeoutKey: string;
}

/**
 * Run a PostgreSQL client program; its stderr becomes the error message when it fails. It gets
 * the deadlines: libpq gives up connecting after connectTimeoutMs (unless PGCONNECT_TIMEOUT is
 * set), and the program is ended after timeoutMs (a silent link would hold it for hours).
 */
export function runPgTool(program: string, args: string[], env: Record<string, string | undefined>, deadlines: PgToolDeadlines, password?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const childEnv: Record<string, string> = { PGCONNECT_TIMEOUT: String(Math.max(2, Math.ceil(deadlines.connectTimeoutMs / 1000))) };
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    if (password !== undefined) childEnv.PGPASSWORD = password;
    const name = path.basename(program);
    execFile(program, args, { env: childEnv, maxBuffer: 64 * 1024 * 1024, timeout: deadlines.timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if (err.killed) {
        const limit = formatLimit(deadlines.timeoutMs);
        return reject(
          new AppError('backup_timeout', 504, `${name} did not finish within ${limit} (${deadlines.timeoutKey}) and was stopped; nothing was written`, {
            cause: err,
            hint: `If the database answers (svc doctor), the dump needs longer: raise ${deadlines.timeoutKey}.`,
          }),
        );
      }
      const why = (stderr || err.message).trim().split('\n').slice(0, 3).join('\n');
      reject(new AppError('backup_failed', 500, `${name} failed: ${why}`, { cause: err }));
    });
  });
}

const formatLimit = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
