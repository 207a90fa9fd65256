/** Headers the content API lets browsers read (decisions.md: CORS on every response). */
const EXPOSED = 'ETag, Last-Modified, Retry-After, Cache-Control, Allow';

/**
 * CORS for a public read-only API: any origin, no credentials (the key is a header or query).
 * On every answer of the content API. No Vary: Origin: the answer is the same for every origin.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED,
};

/** A preflight's answer (204): GET with Authorization / X-Api-Key (and conditional headers) allowed. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, X-Api-Key, Content-Type, If-None-Match, If-Modified-Since, Cache-Control',
  'Access-Control-Max-Age': '86400',
};
