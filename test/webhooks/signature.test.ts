import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/index.js';

const SECRET = 'whsec_0123456789abcdefghijABCDEFGHIJxyz';
const body = '{"event":"test","deliveryId":"dlv_1"}';
const now = Math.floor(Date.now() / 1000);
// Computed here, independently of src/webhooks/sign.ts.
const hmac = (t: number, secret = SECRET, raw = body) => createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');

describe('verifyWebhookSignature (package export)', () => {
  it('accepts a header in the Stripe format, from a string or the raw bytes', () => {
    expect(verifyWebhookSignature(body, `t=${now},v1=${hmac(now)}`, SECRET)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), `t=${now},v1=${hmac(now)}`, SECRET)).toBe(true);
  });

  it('accepts any matching v1 among several, and ignores other schemes as Stripe does', () => {
    const other = hmac(now, 'whsec_other_other_other_other_other_other');
    expect(verifyWebhookSignature(body, `t=${now},v1=${other},v1=${hmac(now)}`, SECRET)).toBe(true);
    expect(verifyWebhookSignature(body, `t=${now},v0=${'0'.repeat(64)},v1=${hmac(now)}`, SECRET)).toBe(true);
    expect(verifyWebhookSignature(body, `t=${now},v0=${hmac(now)}`, SECRET)).toBe(false);
  });

  it('accepts a list of secrets (the receiver rotating too)', () => {
    expect(verifyWebhookSignature(body, `t=${now},v1=${hmac(now)}`, ['whsec_new_new_new_new_new_new_new_new_new', SECRET])).toBe(true);
  });

  it('refuses a changed body, a wrong secret, a malformed header and a missing one', () => {
    expect(verifyWebhookSignature(`${body} `, `t=${now},v1=${hmac(now)}`, SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${now},v1=${hmac(now)}`, 'whsec_wrong_wrong_wrong_wrong_wrong_wrong')).toBe(false);
    expect(verifyWebhookSignature(body, `v1=${hmac(now)}`, SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${now}`, SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, 'garbage', SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, undefined, SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${now},v1=${hmac(now).slice(0, 10)}`, SECRET)).toBe(false);
  });

  it('refuses a timestamp outside the tolerance (default 300 s), unless the tolerance is 0', () => {
    const old = now - 301;
    expect(verifyWebhookSignature(body, `t=${old},v1=${hmac(old)}`, SECRET)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${old},v1=${hmac(old)}`, SECRET, { toleranceSeconds: 600 })).toBe(true);
    expect(verifyWebhookSignature(body, `t=${old},v1=${hmac(old)}`, SECRET, { toleranceSeconds: 0 })).toBe(true);
    const within = now - 299;
    expect(verifyWebhookSignature(body, `t=${within},v1=${hmac(within)}`, SECRET)).toBe(true);
  });
});
