import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/main.js';
import { withStateDir } from './env.js';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/svc.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

const result = (code: number, stdout: string, stderr: string): CliResult => ({
  code,
  stdout,
  stderr,
  json: () => {
    try {
      return JSON.parse(stdout);
    } catch {
      throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
    }
  },
});

/**
 * Run the CLI in-process through run(argv, io): fast, same code path as the binary.
 * `interactive: true` plays a person at a terminal: answer prompts with prompts.inject([...]); progress bars are drawn.
 */
export async function runCli(args: string[], opts: { env: Record<string, string>; cwd: string; stdin?: string; interactive?: boolean }): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const code = await run(args, {
    stdout,
    stderr,
    stdin: Readable.from([opts.stdin ?? '']),
    interactive: opts.interactive ?? false,
    progress: opts.interactive ?? false,
    env: withStateDir({ ...opts.env }),
    cwd: opts.cwd,
  });
  return result(code, out, err);
}

/** Run the real binary (compiled dist/) as a subprocess, with no terminal. */
export function spawnCli(args: string[], opts: { env: Record<string, string>; cwd: string; stdin?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: withStateDir({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...opts.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(result(code ?? -1, out, err));
    });
    child.stdin.end(opts.stdin ?? '');
  });
}
