// vitest globalSetup: one line before the run saying which test groups will skip and how to run
// them (issue 24: `npm test` skipped the PostgreSQL tests without a word).

/** The line for this environment, or undefined when nothing skips for want of a service. */
export function skipNotice(env: Record<string, string | undefined>): string | undefined {
  if (env.SVC_TEST_DATABASE_URL) return undefined;
  return [
    'note: the tests that need PostgreSQL (several daemons on one database, db copy, pg_dump backups and others) skip: SVC_TEST_DATABASE_URL is not set.',
    '      To run them: SVC_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test (README, "Development").',
  ].join('\n');
}

export default function setup(): void {
  const line = skipNotice(process.env);
  if (line) process.stdout.write(`${line}\n`);
}
