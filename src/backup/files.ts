import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';

/** A name beside `file` for work in progress, unique to this run (same directory: rename is atomic). */
export const sideName = (file: string, what: string) => `${file}.${what}-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A SQLite file with its -wal, -shm and -journal, and svc's lock sidecars. */
const sqliteFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`, `${file}-migrate.lock`, `${file}-daemon.lock`];

/** Remove a SQLite file with its sidecars, ignoring what is not there. */
export function removeSqliteFiles(file: string): void {
  for (const f of sqliteFiles(file)) rmSync(f, { force: true });
}

/**
 * Whether `file` is the database or one of its sidecars (directories compared by real path):
 * SQLite deletes or overwrites a -wal, -shm or -journal it finds beside the database.
 */
export function isSqliteFileOf(database: string, file: string): boolean {
  return sqliteFiles(realPath(database)).includes(realPath(file));
}

/** `file` with its directory's symbolic links resolved (as given when the directory does not exist). */
function realPath(file: string): string {
  const dir = path.dirname(path.resolve(file));
  try {
    return path.join(realpathSync(dir), path.basename(file));
  } catch {
    return path.join(dir, path.basename(file));
  }
}

/** Make a rename or link in `dir` survive a power cut. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory; the rename is still atomic.
  } finally {
    closeSync(fd);
  }
}

/** Backups hold key hashes and password hashes: private to the service user whatever the umask. */
export const makePrivate = (file: string) => chmodSync(file, 0o600);

/** 20261122T030000Z: a time for file names, sortable, without colons. */
export const fileStamp = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');

export const dirOf = (file: string) => path.dirname(path.resolve(file));
