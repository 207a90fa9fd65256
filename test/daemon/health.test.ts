import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';

describe('daemon', () => {
  it('answers /healthz with the version and database state', async () => {
    const d = await startDaemon();
    const res = await fetch(`${d.url}/healthz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', version: expect.any(String), database: { state: 'ok' } });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers unknown routes with a JSON 404', async () => {
    const d = await startDaemon();
    const res = await fetch(`${d.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No route for GET /nope' } });
  });

  it('gives every request an id: its own when well formed, a fresh one otherwise', async () => {
    const d = await startDaemon();
    const own = await fetch(`${d.url}/healthz`, { headers: { 'X-Request-Id': 'lb-1234.abc' } });
    expect(own.headers.get('x-request-id')).toBe('lb-1234.abc');
    const bad = await fetch(`${d.url}/healthz`, { headers: { 'X-Request-Id': 'no spaces <allowed>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const again = await fetch(`${d.url}/healthz`);
    expect(again.headers.get('x-request-id')).not.toBe(bad.headers.get('x-request-id'));
    expect(own.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 503 with the database state when the database is gone', async () => {
    const d = await startDaemon({ jobs: false });
    await d.app.db.destroy();
    const res = await fetch(`${d.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'degraded', version: expect.any(String), database: { client: d.config.database.client, state: 'unavailable' }, failing: ['database'] });
    // Liveness does not depend on the database.
    const live = await fetch(`${d.url}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'alive', version: expect.any(String) });
  });
});
