import { createHash } from 'node:crypto';
import { safeEqual } from '../lib/crypto.js';

// RFC 7636: code_verifier is 43..128 characters of [A-Z a-z 0-9 - . _ ~]; a S256 challenge is
// BASE64URL(SHA256(verifier)) without padding, always 43 characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export const isValidChallenge = (challenge: string): boolean => CHALLENGE.test(challenge);

/** True when the verifier hashes to the stored S256 challenge (timing-safe comparison). */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return safeEqual(computed, challenge);
}
