import { hash, randomBytes, randomFillSync, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Bytes from the CSPRNG, fetched 4 kB at a time and each used once (as crypto.randomUUID caches
// its entropy): a randomBytes call per id cost 40 us of every webhook delivery.
const entropy = Buffer.alloc(4096);
let used = entropy.length;
const randomByte = (): number => {
  if (used === entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  return entropy[used++];
};

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

// One-shot crypto.hash (Node >= 20.12): a third of createHash's cost, and the content API hashes
// the presented blog key on every request it has not memoised.
export const sha256Hex = (value: string | Buffer): string => hash('sha256', value, 'hex');

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

// scrypt parameters: N=2^15, r=8, p=1 (OWASP minimum for scrypt), 64-byte key.
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Hash a password as `scrypt$N$r$p$salt$hash` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 64, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(key, expected);
}
