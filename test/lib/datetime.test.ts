import { describe, expect, it } from 'vitest';
import { parseDateTime, parseScheduleTime } from '../../src/lib/datetime.js';

const NOW = new Date('2026-11-23T10:00:00Z');
const utc = (v: string) => parseDateTime(v, { naive: 'utc' });

describe('one date-time reader (lib/datetime.ts)', () => {
  it('reads ISO 8601 with Z or an offset the same in both modes', () => {
    for (const naive of ['utc', 'refuse'] as const) {
      expect(parseDateTime('2026-12-01T09:00:00Z', { naive })).toEqual({ iso: '2026-12-01T09:00:00.000Z', naive: false });
      expect(parseDateTime('2026-12-01T10:00:00+01:00', { naive }).iso).toBe('2026-12-01T09:00:00.000Z');
      expect(parseDateTime('2026-12-01 10:00:00 +0100', { naive }).iso).toBe('2026-12-01T09:00:00.000Z'); // Jekyll's form
      expect(parseDateTime('2026-12-01T04:30:00.123456-05:30', { naive }).iso).toBe('2026-12-01T10:00:00.123Z');
    }
  });

  it('imports read a date without an offset as UTC, and say it was naive', () => {
    expect(utc('2024-05-01')).toEqual({ iso: '2024-05-01T00:00:00.000Z', naive: true });
    expect(utc('2024-05-01 10:20')).toEqual({ iso: '2024-05-01T10:20:00.000Z', naive: true });
    expect(utc('Jul 08 2022')).toEqual({ iso: '2022-07-08T00:00:00.000Z', naive: true });
    expect(utc('8 September 2022 10:00 +0200').iso).toBe('2022-09-08T08:00:00.000Z');
    expect(utc('Fri, 08 Jul 2022 10:00:00 GMT')).toEqual({ iso: '2022-07-08T10:00:00.000Z', naive: false });
  });

  it('scheduled times refuse a missing zone, a missing time, five-digit years and impossible dates', () => {
    expect(parseScheduleTime('2031-05-06T07:08:09+01:00', NOW)).toBe('2031-05-06T06:08:09.000Z');
    expect(() => parseScheduleTime('2026-12-01T09:00:00', NOW)).toThrow('"2026-12-01T09:00:00" has no time zone: add Z for UTC or an offset');
    expect(() => parseScheduleTime('2026-12-01', NOW)).toThrow('"2026-12-01" has no time and time zone');
    expect(() => parseScheduleTime('Jul 08 2027 10:00 Z', NOW)).toThrow('is not an ISO 8601 date-time');
    expect(() => parseScheduleTime('+010000-01-01T00:00:00Z', NOW)).toThrow('is not an ISO 8601 date-time');
    expect(() => parseScheduleTime('10000-01-01T00:00:00Z', NOW)).toThrow('is not an ISO 8601 date-time');
    expect(() => parseScheduleTime('2027-02-30T00:00:00Z', NOW)).toThrow('"2027-02-30T00:00:00Z" is not a real date and time');
    expect(() => parseScheduleTime('2027-01-01T24:00:00Z', NOW)).toThrow('is not a real date and time');
    expect(() => parseScheduleTime('2027-01-01T00:00:00+15:00', NOW)).toThrow('has an offset beyond ±14:00');
    expect(() => parseScheduleTime('2037-01-01T00:00:00Z', NOW)).toThrow('"2037-01-01T00:00:00Z" is more than 10 years ahead');
    expect(() => parseScheduleTime('1969-12-31T23:59:59Z', NOW)).toThrow('is before 1970');
    // A time in the past is fine: the daemon publishes it at its next check.
    expect(parseScheduleTime('2026-11-23T09:00:00Z', NOW)).toBe('2026-11-23T09:00:00.000Z');
  });

  it('errors are invalid_input AppErrors (a 400 on every surface)', () => {
    try {
      parseScheduleTime('soon', NOW);
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ code: 'invalid_input', status: 400, message: '"soon" is not an ISO 8601 date-time (e.g. 2026-12-01T09:00:00Z)' });
    }
  });
});
