import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterFile } from '../helpers/cleanup.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

export interface Answer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send these bytes as they are instead of `body` as JSON. */
  raw?: string;
  /** Hold the answer this long (a slow receiver). */
  delayMs?: number;
}

export type Script = (req: Received, index: number) => Answer | Promise<Answer>;

export interface TestReceiver {
  url: string;
  received: Received[];
  script: Script;
  /** Resolve once at least n requests arrived (fails after 15 s). */
  waitFor(n: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real webhook receiver on 127.0.0.1:<ephemeral> that records raw bodies and headers and answers as scripted. */
export async function startReceiver(script: Script = () => ({ status: 200 })): Promise<TestReceiver> {
  const received: Received[] = [];
  const r: TestReceiver = {
    url: '',
    received,
    script,
    async waitFor(n) {
      const deadline = Date.now() + 15_000;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} requests, expected ${n}`);
        await new Promise((res) => setTimeout(res, 10));
      }
      return received;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        /* recorded raw */
      }
      const entry: Received = { headers: req.headers, raw, body };
      const index = received.push(entry) - 1;
      const answer = await r.script(entry, index);
      if (answer.delayMs) await heldFor(res, answer.delayMs);
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', ...answer.headers });
      res.end(answer.raw ?? JSON.stringify(answer.body ?? { received: (body as { deliveryId?: string } | null)?.deliveryId ?? null }));
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  afterFile(() => r.close());
  return r;
}

/** Waits `ms`, or less when the connection closes first (the client gave up, the receiver closed): no timer outlives the test. */
function heldFor(res: http.ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

/**
 * Independent check of X-Service-Signature (not src/webhooks/sign.ts): HMAC-SHA256 keyed with
 * the secret's UTF-8 bytes over "<t>.<raw body>", one v1 per active secret.
 */
export function independentVerify(raw: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`), raw])).digest();
  return parts.filter(([k]) => k === 'v1').some(([, v]) => {
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
