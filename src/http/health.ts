import Router from '@koa/router';
import type { App } from '../app.js';
import { VERSION } from '../version.js';

/** GET /healthz: version and database state; 503 when the database does not answer. */
export function createHealthRouter(app: App): Router {
  const router = new Router();
  router.get('/healthz', async (ctx) => {
    let database: 'ok' | 'unavailable' = 'ok';
    try {
      await app.db.raw('select 1');
    } catch (err) {
      app.log.error({ err }, 'health check: database unavailable');
      database = 'unavailable';
    }
    ctx.status = database === 'ok' ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: database === 'ok' ? 'ok' : 'degraded', version: VERSION, database: { client: app.config.database.client, state: database } };
  });
  return router;
}
