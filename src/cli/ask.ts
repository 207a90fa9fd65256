import prompts from 'prompts';
import { usageError } from '../errors.js';
import type { Io } from './io.js';

// The only importer of prompts. Without a terminal (scripts, CI) nothing is asked: the
// command fails with a usage error naming the flag to pass instead.

export async function askText(io: Io, value: string | undefined, q: { flag: string; message: string; initial?: string; secret?: boolean; /** used without a terminal */ fallback?: string }): Promise<string> {
  if (value !== undefined) return value;
  if (!io.interactive && q.fallback !== undefined) return q.fallback;
  if (!io.interactive) throw usageError(`Missing ${q.flag}`, `Pass ${q.flag} (there is no terminal to ask on).`);
  const answer = await prompts(
    { type: q.secret ? 'password' : 'text', name: 'v', message: q.message, initial: q.initial, stdin: io.stdin, stdout: io.stderr },
    { onCancel: () => { throw usageError('Cancelled'); } },
  );
  if (typeof answer.v !== 'string' || answer.v === '') throw usageError(`Missing ${q.flag}`);
  return answer.v;
}

/** Destructive commands: confirmed on a terminal, `--yes` in scripts. */
export async function confirm(io: Io, yes: boolean | undefined, message: string): Promise<void> {
  if (yes) return;
  if (!io.interactive) throw usageError(`${message} Refusing without --yes (no terminal to confirm on).`, 'Pass --yes to confirm.');
  const answer = await prompts({ type: 'confirm', name: 'ok', message, initial: false, stdin: io.stdin, stdout: io.stderr });
  if (answer.ok !== true) throw usageError('Cancelled');
}
