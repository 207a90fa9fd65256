import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/**
 * A synchronous "has anything been committed?" check for a SQLite database in WAL mode, for
 * hot paths that must see other processes' commits at once (the content API).
 *
 * SQLite keeps the wal-index header in the `-shm` file, twice (bytes 0-47 and 48-95): every
 * committed write transaction by any connection or process changes it (mxFrame grows, or the
 * salts change when the WAL restarts). See https://www.sqlite.org/walformat.html, "The WAL-Index
 * Header". Reading those 96 bytes is one pread; an unchanged header means no commit since the
 * last look. When the answer is not certain (no file, a writer mid-update, the file replaced),
 * token() returns null and the caller reads the database.
 */
export class SqliteChangeSignal {
  private fd: number | null = null;
  private ino = -1;
  private readonly buf = Buffer.alloc(96);

  constructor(private readonly shmPath: string) {}

  /** An opaque value that differs after any commit; null when unknown. */
  token(): string | null {
    try {
      const ino = statSync(this.shmPath).ino;
      if (this.fd === null || ino !== this.ino) {
        this.close();
        this.fd = openSync(this.shmPath, 'r');
        this.ino = fstatSync(this.fd).ino;
        if (this.ino !== ino) return null;
      }
      if (readSync(this.fd, this.buf, 0, 96, 0) < 96) return null;
      const first = this.buf.subarray(0, 48);
      // Copies differ while a writer updates them; isInit (byte 12) is 0 before initialisation.
      if (!first.equals(this.buf.subarray(48, 96)) || first[12] === 0) return null;
      return first.toString('latin1');
    } catch {
      this.close();
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.ino = -1;
  }
}
