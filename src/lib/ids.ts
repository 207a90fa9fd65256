import { randomBase62 } from './crypto.js';

/**
 * Opaque, stable ids with a readable prefix, e.g. `art_0mx3eik7e4fZk8QmT2bX9`: the time the id was
 * made (milliseconds, 9 base-36 characters, one more than the last id of this process at least)
 * then 12 random base62 characters. Ids made together sort together, in byte order and in
 * PostgreSQL's collations alike (digits and lowercase letters only in the time): the rows of one
 * import or bulk publish sit side by side in every index keyed by id, so a batch's transaction
 * writes a few index pages, not one per row.
 */
export function newId(prefix: string): string {
  last = Math.max(Date.now(), last + 1);
  return `${prefix}_${last.toString(36).padStart(9, '0')}${randomBase62(12)}`;
}

let last = 0;

/**
 * Whether a value from outside can be an id at all (ours are `prefix_` + base62): checked before
 * a lookup, so garbage (a NUL, 10 kB of text) is "not found" on SQLite and PostgreSQL alike.
 */
export const isId = (value: string): boolean => /^[A-Za-z0-9_-]{1,60}$/.test(value);
