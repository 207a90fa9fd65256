import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { AppError } from '../errors.js';

/**
 * The most svc reads of any file: a larger export could not become one string anyway (V8 holds
 * at most about 536 million characters), and Node would report it as an unreadable file.
 */
export const FILE_MAX_BYTES = 500_000_000;

/** A UTF-8 text file (markdown, an export), refused with a clear message when it is not one or is larger than `maxBytes`. */
export async function readTextFile(file: string, maxBytes = FILE_MAX_BYTES, expected = 'a markdown file'): Promise<string> {
  return decodeUtf8(await readFileBytes(file, expected, maxBytes), file);
}

const size = (bytes: number): string =>
  bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${bytes.toLocaleString('en-US')} bytes`;

/** `file_too_large` (413), naming the file, its size (or "more than" the limit when unknown) and the limit. */
export const fileTooLarge = (file: string, bytes: number | null, expected: string, maxBytes: number): AppError =>
  new AppError('file_too_large', 413, `${file} is ${bytes === null ? `more than ${size(maxBytes)}` : size(bytes)}; svc reads ${expected} of at most ${size(maxBytes)}`, { details: { maxBytes } });

/**
 * A file's bytes, at most `maxBytes` of them; a missing file or a folder is a file_not_found error
 * naming it, not a stack trace, and a larger file is file_too_large, refused from its size before
 * any of it is read. A regular file is read synchronously: only CLI commands read files (an
 * import, thousands of them), and a promise-based read costs about ten times the CPU of a
 * synchronous one (four thread-pool round trips a file), more than parsing the file. Anything
 * else (a named pipe, a device) has no size to check and may block for as long as its writer
 * likes, so it is streamed off the event loop, where Ctrl-C still reaches the command, and cut
 * off past the limit.
 */
export async function readFileBytes(file: string, expected = 'a file', maxBytes = FILE_MAX_BYTES): Promise<Buffer> {
  let fd: number | undefined;
  try {
    // Opened without waiting for a writer (a named pipe's open would block until one comes), and
    // checked on the open file: one path lookup a file instead of two (a stat, then the open).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = fstatSync(fd);
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!info.isFile()) {
      const held = fd;
      fd = undefined;
      return await readCapped(file, expected, maxBytes, held);
    }
    if (info.size > maxBytes) throw fileTooLarge(file, info.size, expected, maxBytes);
    return readOpen(fd, info.size, file, expected, maxBytes);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new AppError('file_not_found', 400, `${file} is a directory, not ${expected}`);
    throw new AppError('file_not_found', 400, code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(err as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The bytes of an open regular file of `size` bytes, as readFileSync reads them: up to its size
 * (fewer if it shrank meanwhile), or to its end when it reports none (a file of /proc), then
 * refused past `maxBytes`.
 */
function readOpen(fd: number, size: number, file: string, expected: string, maxBytes: number): Buffer {
  if (size > 0) {
    const buffer = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buffer, got, size - got, null);
      if (n === 0) break;
      got += n;
    }
    return got < size ? buffer.subarray(0, got) : buffer;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > maxBytes) throw fileTooLarge(file, null, expected, maxBytes);
    chunks.push(chunk.subarray(0, n));
  }
}

/**
 * A file with no size (a pipe, a device) read as a stream, refused once it passes `maxBytes`.
 * `held`, the descriptor its kind was checked on, is closed once the stream has its own: a
 * pipe's writer may have opened it for that reader, and with no reader left for a moment its
 * first write would end it (SIGPIPE), and the stream's open would then wait for a writer forever.
 */
async function readCapped(file: string, expected: string, maxBytes: number, held: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = createReadStream(file);
  let release: (() => void) | undefined = () => closeSync(held);
  const releaseOnce = () => {
    release?.();
    release = undefined;
  };
  stream.once('open', releaseOnce);
  stream.once('close', releaseOnce);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      stream.destroy();
      throw fileTooLarge(file, null, expected, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

// A fatal decoder's state is reset by each whole (non-streaming) decode, so one serves every file.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Text must be UTF-8: a binary or Latin-1 file would be stored with its bytes replaced. */
export function decodeUtf8(bytes: Buffer, source: string): string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new AppError('invalid_encoding', 400, `${source} is not UTF-8 text`, { hint: 'Save it as UTF-8 (e.g. iconv -f latin1 -t utf-8).' });
  }
  if (text.includes('\0')) throw new AppError('invalid_encoding', 400, `${source} is a binary file, not markdown text`);
  return text;
}
