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
});
