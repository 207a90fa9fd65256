import { spawnSync } from 'node:child_process';

/** Set by .ci/run: a run without promtool is then a failure, not a skip. */
export const promtoolRequired = (env = process.env): boolean => env.SVC_TEST_REQUIRE_PROMTOOL === '1';

/** Whether `promtool` (Debian's `prometheus` package) is on PATH. */
export const hasPromtool = (): boolean => spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

export const NO_PROMTOOL = 'promtool tests skipped: promtool is not on PATH. To run them: apt-get install prometheus (it ships promtool).';

/** `promtool check metrics` over an exposition text: its exit code and what it printed. */
export function promtoolCheck(text: string): { code: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}
