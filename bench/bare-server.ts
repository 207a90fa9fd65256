import { readFileSync } from 'node:fs';
import http from 'node:http';

// The baseline: node:http answering precomputed bytes from memory. Started as a child process
// by bench/content.ts with a JSON file { "<url>": { type, body (base64) } }; prints its port.
const routes = new Map<string, { type: string; body: Buffer }>();
for (const [url, r] of Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8')) as Record<string, { type: string; body: string }>)) {
  routes.set(url, { type: r.type, body: Buffer.from(r.body, 'base64') });
}
const server = http.createServer((req, res) => {
  const r = routes.get(req.url ?? '');
  if (!r) {
    res.writeHead(404).end();
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
