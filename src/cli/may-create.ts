import type { Command } from 'commander';

// Apart from harness.ts so that declaring a command (serve's, loaded with every command as the
// default) does not load what running one needs.

const mayCreate = new WeakSet<Command>();

/**
 * Declare that `command` may create and migrate a database that is not there yet (init, migrate,
 * serve, the commands that add a first user or workspace). Every other command run through act
 * refuses a missing database: a command added later refuses unless it says otherwise here.
 */
export function mayCreateDatabase<C extends Command>(command: C): C {
  mayCreate.add(command);
  return command;
}

/** Whether `command` was declared with mayCreateDatabase. */
export const declaredMayCreateDatabase = (command: Command): boolean => mayCreate.has(command);
