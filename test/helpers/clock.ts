import type { Clock } from '../../src/lib/clock.js';

/**
 * The clock tests hand to the daemon: real time plus an offset the test moves forward, so a
 * token's hour or a session's week passes in one call instead of a sleep (or a 100 ms lifetime).
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Jump forward by ms (e.g. clock.advance(61 * 60_000) to expire a one-hour token). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
