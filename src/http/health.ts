import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import type { App } from '../app.js';
import { toAppError, unavailable } from '../errors.js';
import { within } from '../lib/deadline.js';
import { logFailure } from '../lib/failure-log.js';
import { VERSION } from '../version.js';

/** Where the daemon is in its life; /healthz is 200 only when `ready` (so a load balancer sends requests only while it serves them). */
export type Phase = 'starting' | 'ready' | 'draining';

/**
 * GET /healthz is a readiness check a load balancer can use: 200 `ok` once the database is
 * migrated and every surface serves; 503 while starting (`starting`), once a shutdown began
 * (`draining`, so a balancer stops sending before the port closes) and when the database does not
 * answer within server.readinessTimeout (`degraded`, `failing: ["database"]`): the check itself
 * never hangs. GET /livez is liveness for a process manager: 200 whenever the process answers at
 * all, whatever its dependencies do (restarting svc does not bring a database back).
 */
export function createHealthRouter(app: App, phase: () => Phase): Router {
  const router = new Router();
  router.get('/livez', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'alive', version: VERSION };
  });
  router.get('/healthz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (phase() === 'draining') {
      ctx.status = 503;
      ctx.body = { status: 'draining', version: VERSION };
      return;
    }
    const database: { client: string; state: 'ok' | 'unavailable'; failure?: string } = { client: app.config.database.client, state: 'ok' };
    try {
      const ms = app.config.server.readinessTimeout;
      await within(app.db.raw('select 1'), ms, () => unavailable('database', `The database did not answer within ${ms} ms`, { failure: 'silent' }));
    } catch (err) {
      const e = toAppError(err);
      logFailure(app, err, e, ctx.state.requestId, 'health check');
      database.state = 'unavailable';
      if (typeof e.details?.failure === 'string') database.failure = e.details.failure;
    }
    const ok = database.state === 'ok';
    ctx.status = ok ? 200 : 503;
    ctx.body = ok ? { status: 'ok', version: VERSION, database } : { status: 'degraded', version: VERSION, database, failing: ['database'] };
  });
  return router;
}

/**
 * Every request that arrives between binding the port and being ready: 503 with Retry-After,
 * at once, so no client waits on a daemon that is still migrating (before, such requests hung).
 * Plain node:http, since the app does not exist yet.
 */
export function answerWhileStarting(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/livez') {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ status: 'alive', version: VERSION }));
    return;
  }
  const health = path === '/healthz';
  const body = health
    ? { status: 'starting', version: VERSION }
    : { error: { code: 'starting', message: 'svc is starting; try again in a moment' } };
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Retry-After': '1',
    'Cache-Control': 'no-store',
    'Access-Control-Allow-Origin': '*',
    Connection: 'close',
  });
  res.end(JSON.stringify(body));
}
