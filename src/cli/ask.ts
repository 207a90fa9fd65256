import type prompts from 'prompts';
import { usageError } from '../errors.js';
import type { Io } from './io.js';

// The only importer of prompts. Without a terminal (scripts, CI) nothing is asked: the
// command fails with a usage error naming the flag to pass instead.

/** prompts, loaded at the first question: most runs of a command ask none. */
async function ask(...args: Parameters<typeof prompts>): ReturnType<typeof prompts> {
  const { default: prompt } = await import('prompts');
  return prompt(...args);
}

export async function askText(io: Io, value: string | undefined, q: { flag: string; message: string; initial?: string; secret?: boolean; /** used without a terminal */ fallback?: string }): Promise<string> {
  if (value !== undefined) return value;
  if (!io.interactive && q.fallback !== undefined) return q.fallback;
  if (!io.interactive) throw usageError(`Missing ${q.flag}`, `Pass ${q.flag} (there is no terminal to ask on).`);
  const answer = await ask(
    { type: q.secret ? 'password' : 'text', name: 'v', message: q.message, initial: q.initial, stdin: io.stdin, stdout: io.stderr },
    { onCancel: () => { throw usageError('Cancelled'); } },
  );
  if (typeof answer.v !== 'string' || answer.v === '') throw usageError(`Missing ${q.flag}`);
  return answer.v;
}

/**
 * A new password: the flag's value as given (the service validates it), or on a terminal asked
 * twice, checked for length at the prompt and asked again (up to 3 times) when too short or the
 * two do not match: a typo in a hidden field would otherwise lock the owner out.
 */
export async function askNewPassword(io: Io, value: string | undefined, q: { flag: string; message: string; minLength: number }): Promise<string> {
  if (value !== undefined || !io.interactive) return askText(io, value, { flag: q.flag, message: q.message, secret: true });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const first = await askText(io, undefined, { flag: q.flag, message: q.message, secret: true });
    if (first.length < q.minLength) {
      io.stderr.write(`Passwords need at least ${q.minLength} characters; this one has ${first.length}.\n`);
      continue;
    }
    const again = await askText(io, undefined, { flag: q.flag, message: 'Type it again to confirm', secret: true });
    if (again === first) return first;
    io.stderr.write('The two passwords differ.\n');
  }
  throw usageError('No password chosen after 3 tries', `Run the command again, or pass ${q.flag}.`);
}

/** Destructive commands: confirmed on a terminal, `--yes` in scripts. */
export async function confirm(io: Io, yes: boolean | undefined, message: string): Promise<void> {
  if (yes) return;
  if (!io.interactive) throw usageError(`${message} Refusing without --yes (no terminal to confirm on).`, 'Pass --yes to confirm.');
  const answer = await ask({ type: 'confirm', name: 'ok', message, initial: false, stdin: io.stdin, stdout: io.stderr });
  if (answer.ok !== true) throw usageError('Cancelled');
}
