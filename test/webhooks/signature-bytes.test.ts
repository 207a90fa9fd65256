import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/index.js';
import { signatureHeader } from '../../src/webhooks/sign.js';

const SECRET = 'whsec_0123456789abcdefghijABCDEFGHIJxyz';
const body = '{"title":"Crème brûlée – 日本 😀","x":"a\u0000b"}';
const t = 1_700_000_000;

describe('signature over the exact bytes of a non-ASCII body', () => {
  it('string, Buffer and a Uint8Array view at an offset sign and verify alike', () => {
    const bytes = Buffer.from(body, 'utf8');
    const backing = new Uint8Array(bytes.length + 16);
    backing.set(bytes, 7);
    const view = backing.subarray(7, 7 + bytes.length);
    const expected = createHmac('sha256', SECRET).update(Buffer.concat([Buffer.from(`${t}.`), bytes])).digest('hex');
    for (const raw of [body, bytes, view]) {
      expect(signatureHeader(raw, [SECRET], t)).toBe(`t=${t},v1=${expected}`);
      expect(verifyWebhookSignature(raw, `t=${t},v1=${expected}`, SECRET, { now: t })).toBe(true);
    }
  });
});
