import http from 'node:http';
import type { AddressInfo } from 'node:net';

// Webhook receivers for bench/webhooks.ts, in a process of their own (so neither svc's worker
// nor the bare POST loop pays for them). argv[2]: JSON list of behaviours, one server each:
// "ok" (200 at once), "slow:<ms>" (200 after ms), "status:<code>" (that status at once).
// Prints the ports as a JSON list on one line. After the parent sent 'notify' (IPC), each answer
// written is reported as { i (the server's index), article (the payload's article.id), bytes, at (when it was answered) };
// after 'quiet', nothing is parsed or reported (each message is acknowledged with { ack }).
const behaviours = JSON.parse(process.argv[2] ?? '["ok"]') as string[];
let notify = false;
process.on('message', (m) => {
  if (m === 'notify') notify = true;
  if (m === 'quiet') notify = false;
  process.send?.({ ack: m });
});

const servers = behaviours.map((b, i) =>
  http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => notify && chunks.push(c));
    req.on('end', () => {
      const answer = (status: number) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end('{"received":true}');
        if (!notify) return;
        // On the clock both processes share: the parent handles this message only once its event loop is free.
        const at = performance.timeOrigin + performance.now();
        const body = Buffer.concat(chunks);
        let article = '';
        try {
          article = (JSON.parse(body.toString('utf8')) as { article?: { id?: string } }).article?.id ?? '';
        } catch {
          // not a webhook payload (the bare loop's bytes)
        }
        process.send?.({ i, article, bytes: body.length, at });
      };
      if (b.startsWith('slow:')) setTimeout(() => answer(200), Number(b.slice(5)));
      else answer(b.startsWith('status:') ? Number(b.slice(7)) : 200);
    });
  }),
);
Promise.all(servers.map((s) => new Promise<number>((ok) => s.listen(0, '127.0.0.1', () => ok((s.address() as AddressInfo).port))))).then((ports) => {
  process.stdout.write(`${JSON.stringify(ports)}\n`);
});
const stop = () => {
  for (const s of servers) s.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
