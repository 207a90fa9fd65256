import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Clock } from '../../src/lib/clock.js';

/**
 * The clock tests hand to the daemon: real time plus an offset the test moves forward, so a
 * token's hour or a session's week passes in one call instead of a sleep (or a 100 ms lifetime).
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  /**
   * Starts at noon UTC on the 15th of the real current month and runs on from there: usage is
   * counted per calendar month, so a test that spends credits and reads them back (minutes or a
   * few days of advances later) must not see the month change under it when the real clock does.
   */
  static midMonth(): TestClock {
    const clock = new TestClock();
    const real = new Date();
    clock.offsetMs = Date.UTC(real.getUTCFullYear(), real.getUTCMonth(), 15, 12) - real.getTime();
    return clock;
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Jump forward by ms (e.g. clock.advance(61 * 60_000) to expire a one-hour token). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /**
   * Environment for a svc subprocess (spawnCli, or spawn with BIN) that makes its system clock
   * read as this clock does now: Date shifted by the same offset (helpers/shift-date.mjs,
   * preloaded). The child does not follow later advance() calls.
   */
  childEnv(): Record<string, string> {
    return { NODE_OPTIONS: `--import=${SHIFT_DATE}`, SVC_TEST_DATE_OFFSET_MS: String(this.offsetMs) };
  }
}

const SHIFT_DATE = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'shift-date.mjs')).href;
