import { randomBase62 } from './crypto.js';

/** Opaque, stable ids with a readable prefix, e.g. `art_4fZk8QmT2bX9cL1p`. */
export const newId = (prefix: string): string => `${prefix}_${randomBase62(16)}`;
