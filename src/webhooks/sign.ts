import { type KeyObject, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

// Stripe-compatible signatures: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, hex = HMAC-SHA256 of
// "<t>.<raw body>" keyed by the secret, one v1 per active secret. Part of the public package
// (receivers import verifyWebhookSignature): it imports nothing else from svc.

type RawBody = string | Uint8Array;

/** Keys made from the secrets in use (a daemon signs with a handful), so each signature does not copy its secret into a new key. */
const keys = new Map<string, KeyObject>();
const keyOf = (secret: string): KeyObject => {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1_000) keys.clear(); // bounded: rotated secrets drop out
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
};

/** Hex HMAC-SHA256 of `"<t>.<raw body>"`, computed over the exact bytes. */
export function computeSignature(rawBody: RawBody, timestamp: number, secret: string): string {
  return createHmac('sha256', keyOf(secret)).update(`${timestamp}.`, 'utf8').update(rawBody).digest('hex');
}

/** The X-Service-Signature header for a body, signed with every active secret (newest first). */
export function signatureHeader(rawBody: RawBody, secrets: string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(rawBody, timestamp, s)}`)].join(',');
}

export interface VerifyOptions {
  /** Refuse a `t` further than this from now (default 300 s; 0 turns the check off). */
  toleranceSeconds?: number;
  /** "Now" in unix seconds, for tests (default: the system clock). */
  now?: number;
}

/** Why a signature header does not verify, or null when it does. */
export function signatureProblem(rawBody: RawBody, header: string | null | undefined, secret: string | string[], options: VerifyOptions = {}): string | null {
  if (typeof header !== 'string' || header === '') return 'missing signature header';
  // Parsed the way Stripe's libraries do: comma-separated key=value items, `t` once, any number
  // of `v1`, other schemes (v0, ...) ignored.
  let timestamp = -1;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') timestamp = Number.parseInt(value, 10);
    if (key === 'v1' && value) signatures.push(value);
  }
  if (!Number.isFinite(timestamp) || timestamp < 0 || signatures.length === 0) return 'unable to extract timestamp and signatures from header';
  const secrets = Array.isArray(secret) ? secret : [secret];
  const matched = secrets.some((s) => {
    const expected = Buffer.from(computeSignature(rawBody, timestamp, s), 'utf8');
    return signatures.some((sig) => {
      const given = Buffer.from(sig, 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  });
  if (!matched) return 'no signature matches the expected signature for the payload';
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (tolerance > 0 && Math.abs(now - timestamp) > tolerance) return 'timestamp outside the tolerance zone';
  return null;
}

/** Verify an X-Service-Signature header against the raw body, with any of `secret`; `t` within toleranceSeconds (300) of now. */
export function verifyWebhookSignature(rawBody: RawBody, header: string | null | undefined, secret: string | string[], options: VerifyOptions = {}): boolean {
  return signatureProblem(rawBody, header, secret, options) === null;
}
