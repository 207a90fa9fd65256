import { randomBase62 } from './crypto.js';

/** Opaque, stable ids with a readable prefix, e.g. `art_4fZk8QmT2bX9cL1p`. */
export const newId = (prefix: string): string => `${prefix}_${randomBase62(16)}`;

/**
 * Whether a value from outside can be an id at all (ours are `prefix_` + base62): checked before
 * a lookup, so garbage (a NUL, 10 kB of text) is "not found" on SQLite and PostgreSQL alike.
 */
export const isId = (value: string): boolean => /^[A-Za-z0-9_-]{1,60}$/.test(value);
