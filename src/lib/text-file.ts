import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { AppError } from '../errors.js';

/** A UTF-8 text file (markdown, an export), refused with a clear message when it is not one. */
export async function readTextFile(file: string): Promise<string> {
  return decodeUtf8(await readFileBytes(file, 'a markdown file'), file);
}

/**
 * A file's bytes; a missing file or a folder is a file_not_found error naming it, not a stack trace.
 * A regular file is read synchronously: only CLI commands read files (an import, thousands of
 * them), and a promise-based read costs about ten times the CPU of a synchronous one (four
 * thread-pool round trips a file), more than parsing the file. Anything else (a named pipe, a
 * device) may block for as long as its writer likes, so it is read off the event loop, where
 * Ctrl-C still reaches the command.
 */
export async function readFileBytes(file: string, expected = 'a file'): Promise<Buffer> {
  try {
    return statSync(file).isFile() ? readFileSync(file) : await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new AppError('file_not_found', 400, `${file} is a directory, not ${expected}`);
    throw new AppError('file_not_found', 400, code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(err as Error).message}`);
  }
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
