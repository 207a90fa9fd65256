import { z } from 'zod';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parse `250ms`, `30s`, `2m`, `1h`, `5d` or a bare number of milliseconds. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']);
}

/** zod type for a duration in config: accepts `30s` or 30000, yields milliseconds. */
export const duration = () =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${v}" is not a duration (use e.g. 500ms, 30s, 2m, 1h, 5d)` });
      return z.NEVER;
    }
    return ms;
  });
