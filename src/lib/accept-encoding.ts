/**
 * The content coding to send, from an Accept-Encoding header (RFC 9110 section 12.5.3), among
 * `offered` (in our order of preference: the first wins a tie of weights). Codings and `*` carry
 * q-values; q=0 means "not acceptable"; `*` covers every coding not named; `x-gzip` is gzip
 * (section 8.4.1.3). Identity wins only when named (or covered by `*`) with a higher weight than
 * every coding offered; a coding wins a tie with it (fewer bytes). No header or an empty one
 * means identity: a client that decodes asks for it, and one that sends nothing may not decode.
 * When nothing is acceptable, identity is sent anyway (the section allows it; a 406 helps no one).
 */
export function chooseEncoding<C extends string>(header: string | undefined, offered: readonly C[]): C | 'identity' {
  if (!header || !header.trim()) return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    if (!name) continue;
    const q = weight(params);
    if (q === null) continue; // a malformed weight: the entry is ignored
    const coding = name === 'x-gzip' ? 'gzip' : name;
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0));
  }
  const star = weights.get('*');
  let best: C | null = null;
  let bestQ = 0;
  for (const coding of offered) {
    const q = weights.get(coding) ?? star ?? 0;
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  // Identity named (or covered by `*`) with a higher weight wins; unnamed, it is the last resort.
  const identityQ = weights.get('identity') ?? star;
  return best !== null && (identityQ === undefined || bestQ >= identityQ) ? best : 'identity';
}

/** The q parameter (default 1), or null when it is not a valid qvalue (0 to 1, three decimals at most). */
function weight(params: string[]): number | null {
  for (const p of params) {
    const [k, v] = p.split('=').map((s) => s.trim());
    if (k.toLowerCase() !== 'q') continue;
    if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(v ?? '')) return null;
    return Number(v);
  }
  return 1;
}
