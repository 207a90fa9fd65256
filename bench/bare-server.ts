import { readFileSync } from 'node:fs';
import http from 'node:http';

// The baseline: node:http answering precomputed bytes from memory. Started as a child process
// by bench/content.ts with a JSON file { "<url>": { type, body (base64), coded?: { br, gzip } } };
// prints its port. A request whose Accept-Encoding is exactly a coding it holds gets those bytes
// (precompressed: no negotiation beyond that, no compression per request).
type Route = { type: string; body: Buffer; coded: Record<string, Buffer> };
const routes = new Map<string, Route>();
for (const [url, r] of Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8')) as Record<string, { type: string; body: string; coded?: Record<string, string> }>)) {
  const coded = Object.fromEntries(Object.entries(r.coded ?? {}).map(([c, b]) => [c, Buffer.from(b, 'base64')]));
  routes.set(url, { type: r.type, body: Buffer.from(r.body, 'base64'), coded });
}
const server = http.createServer((req, res) => {
  const r = routes.get(req.url ?? '');
  if (!r) {
    res.writeHead(404).end();
    return;
  }
  const coding = req.headers['accept-encoding'] ?? '';
  const coded = r.coded[coding];
  if (coded) {
    res.writeHead(200, { 'Content-Type': r.type, 'Content-Length': coded.length, 'Content-Encoding': coding, Vary: 'Accept-Encoding' });
    res.end(coded);
    return;
  }
  res.writeHead(200, { 'Content-Type': r.type, 'Content-Length': r.body.length });
  res.end(r.body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
