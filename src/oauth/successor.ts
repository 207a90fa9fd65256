import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// The successor of a rotated refresh token, stored sealed (AES-256-GCM) under a key derived
// (HKDF-SHA256) from the rotated token: only whoever presents that token can read it back, and
// the database alone (token hashes only) cannot. See docs/oauth.md, "Refresh tokens".

const INFO = 'svc oauth refresh successor v1';

const keyOf = (token: string) => Buffer.from(hkdfSync('sha256', token, Buffer.alloc(0), INFO, 32));

export function sealSuccessor(token: string, successor: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(token), iv);
  const sealed = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The successor, or undefined when the sealed value does not open with this token. */
export function openSuccessor(token: string, sealed: string): string | undefined {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(token), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
