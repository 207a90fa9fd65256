import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { sqliteChosenBy } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';

/**
 * After `svc db copy` a marker beside the SQLite file names the new home, and every command refuses
 * the file: one run without the new URL must not write into a database no daemon serves any more.
 */
export const movedMarkerFile = (filename: string) => `${filename}-moved.json`;

export interface MovedMarker {
  /** The new home, without its password (the marker never holds one). */
  to: string;
  at: string;
}

export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return '(invalid URL)';
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

export function markMoved(filename: string, to: string, now: Date): MovedMarker {
  const marker = { to: withoutPassword(to), at: now.toISOString() };
  writeFileSync(movedMarkerFile(filename), JSON.stringify(marker, null, 2) + '\n', { mode: 0o600 });
  return marker;
}

function readMoved(file: string): MovedMarker {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<MovedMarker>;
    return { to: typeof m.to === 'string' ? m.to : '(unknown)', at: typeof m.at === 'string' ? m.at : '(unknown)' };
  } catch {
    return { to: '(unreadable marker)', at: '(unknown)' };
  }
}

export function refuseMovedDatabase(config: Pick<Config, 'database' | 'sources' | 'source'>): void {
  const { database } = config;
  const marker = movedMarkerFile(database.filename);
  if (database.client !== 'sqlite3' || database.ignoreMoved || !existsSync(marker)) return;
  const moved = readMoved(marker);
  throw new AppError('database_moved', 409, `The SQLite database ${database.filename} was moved to ${moved.to} (svc db copy, ${moved.at}): svc no longer uses it`, {
    hint: `Point svc at the new home: database.url in the config file the daemon and the CLI both read (this command uses the file because ${sqliteChosenBy(config)}). To use this file anyway: database.ignoreMoved: true (SVC_DATABASE_IGNORE_MOVED=true), or delete ${marker} to move back for good.`,
    details: { movedTo: moved.to, movedAt: moved.at },
  });
}
