import { CommanderError } from 'commander';
import { toAppError } from './errors.js';
import { type Io, processIo } from './cli/io.js';
import { buildProgram, suggestCommand, unknownCommand } from './cli/program.js';
import { errorJson, escapeControl, labelled } from './cli/terminal-text.js';

/**
 * Exit codes other than 1 that an AppError code asks for: 2 bad usage; 3 the daemon stopped,
 * but something in progress was cut at the shutdown deadline (README, "Stop").
 */
const EXIT_CODES: Record<string, number> = { usage: 2, shutdown_incomplete: 3 };

/** After run() returns, how long anything left running may keep the process alive. */
const LINGER_MS = 3000;

/**
 * Run the CLI and return its exit code: 0 ok, 1 failed, 2 bad usage, 3 stopped with work cut.
 * The only top-level catch; tests call run() in-process with their own Io.
 */
export async function run(argv: string[], given: Io): Promise<number> {
  // One convention everywhere: `error: ...` (and `hint: ...`) on stderr, exit 2 for a usage
  // mistake, 1 for a failure; with --json the error is JSON on stdout and stderr stays empty.
  const json = argv.includes('--json');
  const io: Io = { ...given, json };
  const tell = (text: string) => {
    if (!json) io.stderr.write(labelled(text, Boolean(io.colour)));
  };
  try {
    const program = await buildProgram(io, argv);
    // `svc` alone serves, so commander would read a mistyped command as an argument of serve.
    const unknown = unknownCommand(program, argv);
    if (unknown) {
      const similar = suggestCommand(unknown);
      if (json) io.stdout.write(JSON.stringify({ error: { code: 'usage', message: `unknown command '${unknown}'`, ...(similar ? { suggestion: similar } : {}) } }, null, 2) + '\n');
      tell(`error: unknown command '${escapeControl(unknown)}'\n${similar ? `(Did you mean ${similar}?)\n` : ''}(run svc --help for the list of commands)\n`);
      return 2;
    }
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are "errors" to commander; usage mistakes were already printed on stderr.
      if (err.exitCode === 0) return 0;
      if (json) io.stdout.write(JSON.stringify({ error: { code: 'usage', message: err.message.replace(/^error: /, '') } }, null, 2) + '\n');
      return 2;
    }
    // Operational failures (database down, port taken) are AppErrors too: a message, not a stack.
    // toAppError is the one classifier: a value the database refused is the input's fault (a 400, not a 500).
    const e = toAppError(err);
    if (e.code !== 'internal_error') {
      if (json) io.stdout.write(errorJson({ error: { code: e.code, message: e.message, ...e.details } }) + '\n');
      // Messages may quote text from elsewhere (a receiver's answer): each line is printed inert.
      const lines = (text: string) => text.split('\n').map(escapeControl).join('\n');
      tell(`error: ${lines(e.message)}\n${e.hint ? `hint: ${lines(e.hint)}\n` : ''}`);
      return EXIT_CODES[e.code] ?? 1;
    }
    if (json) io.stdout.write(JSON.stringify({ error: { code: 'internal_error', message: 'Internal error: a bug in svc; run the command again without --json for the details to report' } }) + '\n');
    tell(`error: internal error, a bug in svc; please report it with the lines below.\n${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
}

/**
 * Entry point of bin/svc.js: the only place that exits the process. Normally the process ends
 * by itself once run() returns; a handle left open (a database socket the shutdown deadline gave
 * up on) must not keep it alive, so after LINGER_MS it exits with the code anyway.
 */
export async function main(): Promise<void> {
  // `svc ... | head`: the pipe's reader left before everything was written. What is left to show
  // has no reader; the command still ends as it would have, exit code included, with no stack.
  // The daemon (`svc serve 2>&1 | head`, a log shipper that ended) keeps serving and its log
  // lines are lost: a closed log pipe must not take the content API down with it.
  // Output that could not be written for another reason (a full disk under `> file`) was not
  // delivered: the daemon keeps serving all the same, and the command (or the daemon, once
  // stopped) says so in one line and exits 1, so nobody takes a truncated file for a whole one.
  let lost: NodeJS.ErrnoException | undefined;
  for (const out of [process.stdout, process.stderr]) {
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') lost ??= err;
    });
  }
  let code = await run(process.argv.slice(2), processIo());
  // A failed write reports its error on a later tick: the last line's, after run() has returned.
  await new Promise((resolve) => setImmediate(resolve));
  if (lost) {
    process.stderr.write(`error: svc could not write all of its output (${lost.code ?? lost.message}${lost.code === 'ENOSPC' ? ': no space left on the device' : ''})\n`);
    if (code === 0) code = 1;
  }
  process.exitCode = code;
  setTimeout(() => process.exit(code), LINGER_MS).unref();
}
