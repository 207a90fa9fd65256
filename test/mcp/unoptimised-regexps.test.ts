import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

const IMAGES = path.resolve('dist/src/mcp/tools/images.js');
const VALIDATE = path.resolve('dist/src/lib/validate.js');

/**
 * Runs in a worker thread, an isolate of its own, so the state it brings V8 to stays there. Once
 * an isolate has generated more than 1 MB of regexp code and holds more than 16 MB of executable
 * memory, V8 compiles new regexps without optimisation (TooMuchRegExpCode): a `+` loop then takes
 * a backtrack entry per character, and over about 4 million characters the 64 MB backtrack stack
 * runs out ("Maximum call stack size exceeded"). A daemon that has run long enough, or a test
 * process that ran many files, is in that state.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const v8 = require('node:v8');
const executable = () => v8.getHeapStatistics().total_heap_size_executable;
const words = (i, n) => Array.from({ length: n }, (_, k) => 'w' + i + '_' + k + '[a-z]{' + (k % 5) + ',' + ((k % 5) + 3) + '}q').join('|');
const keep = [];
// Executable memory: native regexp code (a subject of 1000 characters or more compiles straight to it).
for (let i = 0; executable() < 17 * 1024 * 1024; i++) { const re = new RegExp('(?:' + words(i, 20) + ')+z', 'i'); re.test('x'.repeat(2000)); keep.push(re); }
// Regexp code generated: bytecode (a short subject runs the interpreter first) counts whole.
for (let i = 0; i < 3000; i++) new RegExp('(?:' + words(100000 + i, 8) + ')+z').test('xx');
const outcome = (f) => { try { return String(f()); } catch (e) { return e.message; } };
(async () => {
  const { uploadInput } = await import(workerData.images);
  const { parseInput } = await import(workerData.validate);
  const data = 'A'.repeat(4 * 1024 * 1024 + 4);
  parentPort.postMessage({
    plainLoop: outcome(() => new RegExp('^[A-Za-z0-9+/]+={0,2}$|#not-cached').test(data)),
    upload: outcome(() => parseInput(uploadInput, { data }, 'image upload')),
    fullSize: outcome(() => parseInput(uploadInput, { data: data.slice(4) }, 'image upload').data.length),
  });
})().catch((e) => parentPort.postMessage({ error: e.stack }));
`;

function inWorker(): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { images: IMAGES, validate: VALIDATE } });
    worker.once('message', (m) => {
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', reject);
  });
}

describe('where V8 compiles regexps without optimisation (a long-running process)', () => {
  it('upload_image takes a full-size upload and refuses a larger one for its size, naming data, without overflowing the regexp backtrack stack', async () => {
    const out = await inWorker();
    expect(out.error).toBeUndefined();
    // The state is reached: a pattern compiled now overflows on that text.
    expect(out.plainLoop).toBe('Maximum call stack size exceeded');
    expect(out.upload).toBe('Invalid image upload: data: must be at most 4194304 characters');
    // Text within the limit is checked without a loop that grows with it.
    expect(out.fullSize).toBe('4194304');
  });
});
