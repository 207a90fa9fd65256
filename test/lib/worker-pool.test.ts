import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/lib/worker-pool.js';
import { afterFile } from '../helpers/cleanup.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-pool-'));
function workerFile(name: string, source: string): URL {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  return pathToFileURL(file);
}

// A worker in the pool's contract: `spin` never ends, `echo` answers its input, `fail` throws.
const GOOD = workerFile(
  'good.mjs',
  `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ task, input }) => {
  if (task === 'spin') for (;;);
  if (task === 'fail') return parentPort.postMessage({ error: 'RangeError: too deep' });
  parentPort.postMessage({ value: input });
});
parentPort.postMessage({ ready: true });`,
);

// The same, telling the pool its thread id (Linux), with `sleep`: a task that waits without using CPU,
// as a worker does when a busy machine gives it none.
const TIMED = workerFile(
  'timed.mjs',
  `import { readFileSync, readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ task, input }) => {
  if (task === 'spin') for (;;);
  if (task === 'sleep') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, input);
  if (task === 'sip') {
    // input.cpuMs of CPU time (this thread's, from /proc), then no CPU until input.totalMs after the task began.
    const began = performance.now();
    const cpu = () => {
      const stat = readFileSync('/proc/thread-self/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    };
    while (cpu() < input.cpuMs);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, input.totalMs - (performance.now() - began)));
  }
  parentPort.postMessage({ value: input });
});
parentPort.postMessage({ ready: true, tid: Number(readlinkSync('/proc/thread-self').split('/').pop()) });`,
);

function pool(file: URL, timeoutMs = 200) {
  const p = new WorkerPool({ file, size: 1, timeoutMs });
  afterFile(() => p.close());
  return p;
}

describe('the worker pool', () => {
  it('stops a task past its deadline, and a new worker runs the next one', async () => {
    const p = pool(GOOD);
    await expect(p.run('echo', 1)).resolves.toBe(1);
    await expect(p.run('spin', null)).rejects.toMatchObject({ reason: 'timeout', message: 'the task ran longer than 200 ms' });
    await expect(p.run('echo', 2)).resolves.toBe(2);
    await expect(p.run('fail', null)).rejects.toMatchObject({ reason: 'threw', message: 'RangeError: too deep' });
    await expect(p.run('echo', 3)).resolves.toBe(3);
  });

  it('fails the waiting tasks when a worker cannot start, instead of replacing it for ever', async () => {
    const p = pool(workerFile('broken.mjs', `throw new Error('no marked here');`));
    await expect(p.run('echo', 1)).rejects.toMatchObject({ reason: 'start', message: 'a worker could not start: no marked here' });
    await expect(p.run('echo', 2)).rejects.toMatchObject({ reason: 'start' });
  });

  it.runIf(process.platform === 'linux')('counts the CPU time a task used: one that waits for a core is not stopped for it, up to four times its deadline', async () => {
    const p = pool(TIMED);
    // 500 ms without CPU, past the 200 ms deadline: a starved render, not a costly one.
    await expect(p.run('sleep', 500)).resolves.toBe(500);
    // A spin is stopped at its 200 ms of CPU time, or on a machine too busy to give it that much within four times the deadline, at that cap.
    await expect(p.run('spin', null)).rejects.toMatchObject({ reason: 'timeout', message: expect.stringMatching(/^the task (ran longer than 200 ms|waited 4 times its 200 ms deadline for the CPU)$/) });
    // A caller holding a lock gives it no more than its deadline, CPU or not.
    await expect(p.run('sleep', 500, { holdingLock: true })).rejects.toMatchObject({ reason: 'timeout', message: 'the task ran longer than 200 ms' });
    // Past four times the deadline it is stopped all the same.
    await expect(p.run('sleep', 5_000)).rejects.toMatchObject({ reason: 'timeout', message: 'the task waited 4 times its 200 ms deadline for the CPU' });
    await expect(p.run('echo', 1)).resolves.toBe(1);
    expect(p.started).toBe(5);
  });

  it.runIf(process.platform === 'linux')('runs the task of a caller holding a lock before the tasks queued ahead of it', async () => {
    const p = pool(TIMED, 5_000);
    await p.run('echo', 0); // the worker started
    const order: string[] = [];
    const ran = (name: string, task: Promise<unknown>) => task.then(() => order.push(name));
    // The one worker is busy; two tasks wait (a publish's next batches), then a lock holder's comes.
    const all = [ran('busy', p.run('sleep', 100)), ran('queued 1', p.run('echo', 1)), ran('queued 2', p.run('echo', 2)), ran('locked', p.run('echo', 3, { holdingLock: true }))];
    await Promise.all(all);
    expect(order).toEqual(['busy', 'locked', 'queued 1', 'queued 2']);
  });

  it.runIf(process.platform === 'linux')('stops a task that used some CPU time and then waited, at four times its deadline, not one look later', async () => {
    // 40 ms of CPU time first: the pool then looks every 760 ms (at 800, 1560, 2320, 3080 ms), and
    // its next look at 3840 ms would come after the task ends at 3500 ms, past the 3200 ms cap.
    const p = pool(TIMED, 800);
    await expect(p.run('sip', { cpuMs: 40, totalMs: 3_500 })).rejects.toMatchObject({ reason: 'timeout', message: 'the task waited 4 times its 800 ms deadline for the CPU' });
  });
});
