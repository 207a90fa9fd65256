/**
 * Whether the client's copy is current (RFC 9110 section 13): If-None-Match wins over
 * If-Modified-Since. `Cache-Control: no-cache` on the request does not prevent a 304 (Node's
 * fetch sends it; decisions.md): the validator still proves the client has these bytes.
 * `header` reads a request header by lower-case name ('' when absent).
 */
export function isNotModified(header: (name: string) => string, etag: string | null, lastModified: string | null): boolean {
  const inm = header('if-none-match');
  if (inm) {
    if (!etag) return false;
    if (inm.trim() === '*') return true;
    const bare = etag.replace(/^W\//, '');
    return inm.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
  }
  const ims = header('if-modified-since');
  if (ims && lastModified) {
    const since = Date.parse(ims);
    return !Number.isNaN(since) && Date.parse(lastModified) <= since;
  }
  return false;
}
