import { type Stats, chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';

// Private whatever the umask: the data directory holds password and key hashes. SQLite's -wal, -shm and -journal take the file's mode.
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** One level at a time: Node's recursive mkdirSync never returns under /proc, and a path through a file should be told. */
export function ensurePrivateDir(dir: string): void {
  let stat: Stats | undefined;
  try {
    stat = statSync(dir, { throwIfNoEntry: false });
  } catch (err) {
    // A path under a file (ENOTDIR) is not there either: the walk up then finds the file and says so.
    if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
  }
  if (stat?.isDirectory()) return;
  if (stat) throw dataDirError(dir, 'it exists and is not a directory');
  const parent = path.dirname(dir);
  if (parent !== dir) ensurePrivateDir(parent);
  try {
    mkdirSync(dir, { mode: DIR_MODE });
    chmodSync(dir, DIR_MODE); // the umask may have taken bits away from the mode asked for
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirError(dir, (err as Error).message);
  }
}

/** Create `file` empty and 0600 unless it exists (an existing file keeps its mode). */
export function ensurePrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new AppError('database_unavailable', 503, `Cannot create ${file}: ${(err as Error).message}`, {
      hint: 'Check that the data directory (dataDir) is writable by the user svc runs as.',
      details: { dataDir: path.dirname(file) },
    });
  }
  // On the descriptor, not the path (which could be swapped meanwhile): the umask may have taken bits away.
  try {
    fchmodSync(fd, FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

const dataDirError = (dir: string, why: string) =>
  new AppError('database_unavailable', 503, `Cannot create the data directory ${dir}: ${why}`, {
    hint: 'Point dataDir at a writable directory.',
    details: { dataDir: dir },
  });
