import type http from 'node:http';
import type Koa from 'koa';
import type { App } from '../app.js';
import type { ContentApi } from './content-api.js';
import { countRequest } from './middleware/metrics.js';
import { logRequest, requestIdFor } from './middleware/request-log.js';

/**
 * The content API answered straight from node:http, ahead of Koa's context and middleware chain
 * (that chain cost about as much CPU per cached request as the whole answer). Nothing
 * is decided here: the answer is the content API's own (`answer`, the function its Koa route
 * calls), the request id, the log line and the metrics are the request-log and metrics
 * middleware's functions, and the client address is Koa's (`ctx.ip`, proxy settings applied).
 * Returns false, leaving the request to Koa, for any other path and for URLs not in origin form.
 */
export function contentDirect(app: App, api: ContentApi, koa: Koa): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const trustProxy = app.config.server.trustProxy;
  return (req, res) => {
    const url = req.url ?? '';
    if (url[0] !== '/') return false;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (!api.owns(path)) return false;
    const started = performance.now();
    const method = req.method ?? 'GET';
    const header = (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return typeof value === 'string' ? value : '';
    };
    const requestId = requestIdFor(header('x-request-id'));
    // Koa's ctx.ip; without a trusted proxy that is the socket's address, read without a Koa context.
    const address = trustProxy ? () => koa.createContext(req, res).ip : () => req.socket.remoteAddress ?? '';
    const send = (status: number, headers: Record<string, string>, body: Buffer | null, route: string) => {
      headers['X-Request-Id'] = requestId;
      if (body && status !== 204 && status !== 304) headers['Content-Length'] = String(body.length);
      else body = null;
      // Like Koa's respond: nothing is written to a client that already went away (a write would build an error).
      if (!res.writableEnded && res.socket?.writable !== false) {
        res.writeHead(status, headers);
        res.end(body ?? undefined);
      }
      countRequest(app.metrics, method, route, status, started);
      logRequest(app, { requestId, method, url, status, started, address });
    };
    // answer() renders every error itself: a failure here is a bug in sending, answered like Koa's own (a bare 500).
    const failed = (err: unknown) => {
      app.log.error({ err, requestId }, 'content API request failed');
      if (res.headersSent) res.destroy();
      else send(500, {}, null, 'unmatched');
    };
    void api.answer({ method, path, querystring: q === -1 ? '' : url.slice(q + 1), header, requestId, address }).then((a) => {
      try {
        send(a.status, a.headers, a.body, a.route);
      } catch (err) {
        failed(err);
      }
    }, failed);
    return true;
  };
}
