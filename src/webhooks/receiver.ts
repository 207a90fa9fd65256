import http from 'node:http';
import { signatureProblem } from './sign.js';

export interface ReceiverOptions {
  /** Signing secret(s) to verify against. */
  secret: string | string[];
  /** Answer every valid delivery with this status instead of 200 (to try retries and refusals). */
  failWith?: number;
  /** `https://blog.example.com/{slug}`: answered as `url` on publish/update, so svc records it. */
  urlTemplate?: string;
  toleranceSeconds?: number;
  /** One line per request, for the console. */
  onLine(line: string): void;
}

const MAX_BODY = 10 * 1024 * 1024;

/**
 * The development receiver behind `svc webhook listen`: verifies the signature against the raw
 * body (401 when it does not match), prints the event, and answers at once with
 * `{ received: <delivery id> }` (plus `url` from the template on publish/update).
 */
export function createReceiver(opts: ReceiverOptions): http.Server {
  return http.createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return answer(405, { error: 'POST webhook deliveries here' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return answer(413, { error: 'body too large' });
      const raw = Buffer.concat(chunks);
      const header = req.headers['x-service-signature'];
      const problem = signatureProblem(raw, Array.isArray(header) ? header[0] : header, opts.secret, { toleranceSeconds: opts.toleranceSeconds });
      if (problem) {
        opts.onLine(`${new Date().toISOString()}  REJECTED  bad signature (${problem})`);
        return answer(401, { error: `invalid signature: ${problem}` });
      }
      let payload: { event?: string; deliveryId?: string; eventId?: string; article?: { id?: string; slug?: string | null; title?: string } };
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(400, { error: 'body is not JSON' });
      }
      const a = payload.article ?? {};
      const status = opts.failWith ?? 200;
      opts.onLine(`${new Date().toISOString()}  ${payload.event}  ${a.slug ?? a.id ?? '-'}  delivery=${payload.deliveryId}  event=${payload.eventId ?? '-'}  -> ${status}`);
      if (opts.failWith) return answer(opts.failWith, { error: `svc webhook listen answers ${opts.failWith} (--fail-with)` });
      const body: Record<string, unknown> = { received: payload.deliveryId };
      if (opts.urlTemplate && (payload.event === 'article.published' || payload.event === 'article.updated')) {
        body.url = opts.urlTemplate.replaceAll('{slug}', encodeURIComponent(a.slug ?? '')).replaceAll('{id}', encodeURIComponent(a.id ?? ''));
      }
      answer(200, body);
    });
  });
}
