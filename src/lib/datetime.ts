import { invalidInput } from '../errors.js';

/**
 * The one reader of date-times that people type or import (so a time without an offset is never
 * read in the machine's zone, nor year 10000 sorted before 2026). Accepted:
 * `YYYY-MM-DD`, then optionally `T` or a space and `hh:mm[:ss[.fraction]]`, then optionally `Z`
 * or an offset (`+01:00`, `+0100`, `+01`, with or without a space before it, as Jekyll writes
 * it). Years have four digits, so every stored time sorts correctly as text.
 */
const FORM = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?: ?(Z|[+-]\d{2}(?::?\d{2})?))?$/i;

export interface ParsedDateTime {
  /** UTC ISO 8601 with milliseconds and Z, the stored form. */
  iso: string;
  /** The value had no offset (or no time) and was read by the `naive` rule. */
  naive: boolean;
}

// Dates as people write them in front matter (Astro's blog template: `pubDate: 'Jul 08 2022'`)
// and RSS (`Fri, 08 Jul 2022 10:00:00 +0000`): day and month either way round, a 4-digit year,
// an optional time and offset. Accepted by imports only; scheduled times stay ISO 8601.
const WORDS = /^(?:[a-z]{3,9},?\s+)??(?:(\d{1,2})\s+([a-z]{3,9})\.?,?|([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?)\s+(\d{4})(?:,?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2}))?$/i;
const MONTHS = 'january february march april may june july august september october november december'.split(' ');
const monthOf = (name: string) => MONTHS.findIndex((m) => m === name || m.slice(0, 3) === name || (name === 'sept' && m === 'september'));

/** `Jul 08 2022`, `8 July 2022 10:00 +0200`, `Fri, 08 Jul 2022 10:00:00 GMT` -> the ISO form, or undefined. */
function fromWords(text: string): string | undefined {
  const m = WORDS.exec(text);
  if (!m) return undefined;
  const [, d1, mon1, mon2, d2, year, h, mi, s, zone] = m;
  const month = monthOf((mon1 ?? mon2).toLowerCase());
  if (month === -1) return undefined;
  const pad = (n: string | number) => String(n).padStart(2, '0');
  const time = h === undefined ? '' : `T${pad(h)}:${mi}:${s ?? '00'}`;
  const offset = zone === undefined || h === undefined ? '' : /^(Z|UTC|GMT)$/i.test(zone) ? 'Z' : zone;
  return `${year}-${pad(month + 1)}-${pad(d1 ?? d2)}${time}${offset}`;
}

/**
 * Parse `value`. Without an offset, `naive: 'utc'` reads it as UTC, or in `zone` (an IANA zone
 * such as Europe/Berlin) when one is given (imports: the old site's dates; then month names are
 * understood too), and `naive: 'refuse'` throws (scheduled times: the zone must be said).
 */
export function parseDateTime(value: string, opts: { naive: 'utc' | 'refuse'; zone?: string }): ParsedDateTime {
  const trimmed = value.trim();
  const text = opts.naive === 'utc' ? (fromWords(trimmed) ?? trimmed) : trimmed;
  const m = FORM.exec(text);
  if (!m) throw invalidInput(`"${value}" is not an ISO 8601 date-time (e.g. 2026-12-01T09:00:00Z)`);
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const naive = zone === undefined || h === undefined;
  if (naive && opts.naive === 'refuse') {
    throw invalidInput(`"${value}" has no ${h === undefined ? 'time and time zone' : 'time zone'}: add Z for UTC or an offset, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00`);
  }
  const [year, month, day, hour, minute, second] = [y, mo, d, h ?? '0', mi ?? '0', s ?? '0'].map(Number);
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(utc);
  // Date.UTC rolls 2026-02-30 over into March: refuse instead of guessing.
  if (year < 1 || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalidInput(`"${value}" is not a real date and time`);
  }
  const offsetMin = zone === undefined || h === undefined ? (opts.zone ? zoneOffsetMinutes(opts.zone, utc) : 0) : offsetMinutes(zone, value);
  return { iso: new Date(utc - offsetMin * 60_000).toISOString(), naive };
}

/** Is `name` a time zone this runtime knows (Europe/Berlin, America/New_York, UTC)? */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The offset of `zone` for a wall-clock time given as if it were UTC (two passes, so a DST change between is honoured). */
function zoneOffsetMinutes(zone: string, wall: number): number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const offsetAt = (instant: number) => {
    const p = Object.fromEntries(format.formatToParts(new Date(instant)).map((x) => [x.type, Number(x.value)]));
    return (Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instant / 1000) * 1000) / 60_000;
  };
  const first = offsetAt(wall);
  return offsetAt(wall - first * 60_000);
}

function offsetMinutes(zone: string, value: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 14 || minutes > 59) throw invalidInput(`"${value}" has an offset beyond ±14:00`);
  return sign * (hours * 60 + minutes);
}

/** How far ahead a publish may be scheduled: further is almost always a typo (2062 for 2026). */
export const SCHEDULE_HORIZON_YEARS = 10;

/**
 * A scheduled publish time: an explicit offset or Z, from 1970 to SCHEDULE_HORIZON_YEARS after
 * `now`. A time in the past is allowed (the daemon publishes it at its next check).
 */
export function parseScheduleTime(value: string, now: Date): string {
  const { iso } = parseDateTime(value, { naive: 'refuse' });
  return checkScheduleRange(iso, value, now);
}

/** The range rule of parseScheduleTime for a time already parsed (imports' future dates). */
export function checkScheduleRange(iso: string, value: string, now: Date): string {
  if (iso < '1970-01-01') throw invalidInput(`"${value}" is before 1970`);
  const limit = new Date(now);
  limit.setUTCFullYear(limit.getUTCFullYear() + SCHEDULE_HORIZON_YEARS);
  if (iso > limit.toISOString()) throw invalidInput(`"${value}" is more than ${SCHEDULE_HORIZON_YEARS} years ahead`);
  return iso;
}
