/** A scheduled retry delay with up to 10 % jitter added (decisions.md), so receivers are not hit in lockstep. */
export const retryDelay = (baseMs: number): number => Math.round(baseMs * (1 + Math.random() * 0.1));

/** Retry-After as milliseconds from `now`: delta seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}
