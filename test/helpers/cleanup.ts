// vitest runs afterAll only when it is called at a file's or a describe's top level: called inside
// a test or a beforeAll it is ignored without a word, and every daemon, temp dir and PostgreSQL
// database a helper made there outlived the run (864 databases, 7.6 GB, and 1,879 dirs after two
// runs). Helpers register their cleanups here instead; setup.ts runs them at the end of each file.

const pending: Array<() => unknown> = [];

/** Run `fn` when this test file ends, after the ones registered after it (wherever it is called). */
export function afterFile(fn: () => unknown): void {
  pending.push(fn);
}

/** Every cleanup registered, last first; each runs even when one before it failed (the first failure is thrown). */
export async function runAfterFile(): Promise<void> {
  let failure: unknown;
  while (pending.length > 0) {
    try {
      await pending.pop()!();
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
}
