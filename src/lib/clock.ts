/** Injectable time source, so tests and jobs agree on "now". */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** UTC ISO 8601 with milliseconds and `Z`: the one timestamp format stored and served. */
export const iso = (d: Date): string => d.toISOString();

export const nowIso = (clock: Clock): string => clock.now().toISOString();
