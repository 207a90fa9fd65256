import type { ChildProcess } from 'node:child_process';
import type net from 'node:net';

// Waits that fail with a message once what they wait for can no longer happen (the process that
// was to do it exited, the connection it was to come on closed), instead of running into the
// test's timeout without a word.

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Resolves once `child` has exited; at once when it already has. A listener added after the child
 * ended (a daemon that crashed before the test killed it) would otherwise wait forever.
 */
export function exitOf(child: ChildProcess): Promise<Ended> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** `p`, or a rejection saying `what` did not happen when `child` exits (or cannot start) first; `output` adds what it printed. */
export function beforeExit<T>(p: Promise<T>, child: ChildProcess, what: string, output?: () => string): Promise<T> {
  const said = () => (output ? `; it printed:\n${output()}` : '');
  const gone = new Promise<never>((_, reject) => {
    child.once('error', (err) => reject(new Error(`${what}: the process could not run (${err.message})`)));
    void exitOf(child).then(({ code, signal }) => reject(new Error(`${what}: the process exited (${code ?? signal}) first${said()}`)));
  });
  gone.catch(() => undefined); // raced below; once `p` won, the exit is nobody's concern
  return Promise.race([p, gone]);
}

/** `p`, or a rejection saying `what` did not happen when `socket` closes (or has closed) first. */
export function beforeClose<T>(p: Promise<T>, socket: net.Socket, what: string): Promise<T> {
  const gone = new Promise<never>((_, reject) => {
    const fail = () => reject(new Error(`${what}: the connection closed first`));
    if (socket.closed) fail();
    else socket.once('close', fail);
  });
  gone.catch(() => undefined);
  return Promise.race([p, gone]);
}

/**
 * Resolves once `done()` is true, looking again on every turn of the event loop (for tests where
 * the order of a few promise steps matters); fails after `ms`, or as soon as `failed()` says why
 * it never will be.
 */
export async function turnsUntil(done: () => boolean, what: string, options: { ms?: number; failed?: () => unknown } = {}): Promise<void> {
  const end = Date.now() + (options.ms ?? 10_000);
  while (!done()) {
    const why = options.failed?.();
    if (why) throw new Error(`${what}: cannot happen any more (${why instanceof Error ? why.message : String(why)})`);
    if (Date.now() > end) throw new Error(`${what}: not within ${options.ms ?? 10_000} ms`);
    await new Promise((r) => setImmediate(r));
  }
}
