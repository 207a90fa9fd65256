import http from 'node:http';
import { type Load, cpuMicros, percentile } from './content.js';

/**
 * An open-loop load: `rate` requests per second over all `urls` (round robin), sent evenly (a
 * few every millisecond, not autocannon's rate, which sends each connection's quota back to back
 * at the start of every second), on keep-alive connections (at most `connections` per url).
 * Latency counts from when a request was due, so a server that falls behind shows it. With the
 * pids of the serving processes, their CPU time per request.
 */
export async function paced(urls: string[], headers: Record<string, string>, seconds: number, rate: number, pids: Array<number | undefined>, connections = 25): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const ms: number[] = [];
  let failed = 0;
  let sent = 0;
  const one = (url: string) =>
    new Promise<void>((resolve) => {
      const due = performance.now();
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) ms.push(performance.now() - due);
            else failed++;
            resolve();
          });
        })
        .on('error', () => {
          failed++;
          resolve();
        });
    });
  const before = pids.map(cpuMicros);
  const started = performance.now();
  const inFlight: Array<Promise<void>> = [];
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(rate * seconds, Math.floor((elapsed * rate) / 1000));
      for (; sent < due; sent++) inFlight.push(one(urls[sent % urls.length]));
      if (elapsed >= seconds * 1000) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  const after = pids.map(cpuMicros);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  if (failed > 0) throw new Error(`${urls.join(', ')}: ${failed} requests failed`);
  ms.sort((a, b) => a - b);
  const spent = after.reduce<number | null>((sum, a, i) => (sum === null || a === null || before[i] === null ? null : sum + a - before[i]!), 0);
  return { rps: ms.length / elapsed, p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), cpu: spent === null || !pids.length ? undefined : spent / ms.length };
}
