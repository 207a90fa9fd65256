import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { processIo } from '../../src/cli/io.js';
import { interruptionGuard, progressBar } from '../../src/cli/progress.js';

function terminal(): { io: Io; stderr: () => string } {
  let text = '';
  const stderr = new PassThrough();
  stderr.write = ((chunk: string) => ((text += chunk), true)) as typeof stderr.write;
  return { io: { stdout: new PassThrough(), stderr, stdin: new PassThrough(), interactive: true, progress: true, env: {}, cwd: '/' }, stderr: () => text };
}

afterEach(() => vi.restoreAllMocks());

describe('Ctrl-C under a progress bar', () => {
  it('starts its report on a line of its own, also when the command guard was up before the bar', () => {
    // The handler ends the process with the signal's default action once it has reported: not here.
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const { io, stderr } = terminal();
    const guard = interruptionGuard(io, 'Reading the files', { rerun: 'posts already imported are skipped' });
    const bar = progressBar(io, 3, 'Reading');
    bar.update(1);
    process.emit('SIGINT');
    expect(kill).toHaveBeenCalledWith(process.pid, 'SIGINT');
    expect(stderr()).toBe(`\rReading [${' '.repeat(30)}] 0/3\rReading [${'#'.repeat(10)}${' '.repeat(20)}] 1/3\ninterrupted: Reading the files: nothing written yet.\nRun the same command again to finish the job: posts already imported are skipped.\n`);
    bar.done();
    guard.done();
  });
});

describe('where progress bars are drawn', () => {
  const ttys = (stdin: boolean, stderr: boolean, ci?: string) => {
    const saved = { stdin: process.stdin.isTTY, stderr: process.stderr.isTTY, ci: process.env.CI };
    process.stdin.isTTY = stdin;
    process.stderr.isTTY = stderr;
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
    try {
      return processIo();
    } finally {
      process.stdin.isTTY = saved.stdin;
      process.stderr.isTTY = saved.stderr;
      if (saved.ci === undefined) delete process.env.CI;
      else process.env.CI = saved.ci;
    }
  };

  it('on stderr when it is a terminal, whatever stdin is: `2>log` from a terminal gets no bars', () => {
    expect(ttys(true, false)).toMatchObject({ interactive: true, progress: false });
    expect(ttys(false, true)).toMatchObject({ interactive: false, progress: true });
    expect(ttys(true, true, 'true')).toMatchObject({ interactive: false, progress: false });
  });

  it('not at all when the Io says stderr is no terminal', () => {
    const { io, stderr } = terminal();
    const bar = progressBar({ ...io, progress: false }, 3, 'Reading');
    bar.update(3);
    bar.done();
    expect(stderr()).toBe('');
  });
});
