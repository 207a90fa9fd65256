import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import type { Workspace } from '../../src/workspaces/types.js';
import { mcp, sessionFor } from '../oauth/flow.js';

let d: TestDaemon;
let ws: Workspace;
let admin: string;

beforeAll(async () => {
  d = await startDaemon({ jobs: false });
  ws = await seedWorkspace(d.app);
  admin = (await sessionFor(d, (await seedUser(d.app, ws, 'admin')).id)).cookie;
});

const create = (wsId: string, cookie: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${d.url}/api/v1/workspaces/${wsId}/api-keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function expectEnvelope(res: Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error.message).toBe('string');
  if (code) expect(body.error.code).toBe(code);
  return body.error;
}

describe('POST /api/v1/workspaces/<id>/api-keys (session cookie)', () => {
  it('creates a key for an admin: 201 { data: { id, name, scopes, key, createdAt } }, usable on /api/mcp', async () => {
    const res = await create(ws.id, admin, { name: 'CI agent', scopes: ['read', 'content'] }, { Origin: d.url, 'Sec-Fetch-Site': 'same-origin' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = await res.json();
    expect(Object.keys(data).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'scopes']);
    expect(data).toMatchObject({ name: 'CI agent', scopes: ['read', 'content'] });
    expect(data.key).toMatch(/^svc_api_[A-Za-z0-9]{20,}$/);
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    const call = await mcp(d, data.key);
    expect(call.status).toBe(200);
  });

  it('answers 401 without a session, with a bad one, and with a signed-out one', async () => {
    await expectEnvelope(await create(ws.id, undefined, { name: 'x', scopes: ['read'] }), 401);
    await expectEnvelope(await create(ws.id, '__session=not-a-real-session', { name: 'x', scopes: ['read'] }), 401);
    const s = await sessionFor(d, (await seedUser(d.app, ws, 'admin')).id);
    const out = await fetch(`${d.url}/logout`, { method: 'POST', redirect: 'manual', headers: { Cookie: s.cookie, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `csrf=${s.csrf}` });
    expect(out.status).toBe(303);
    await expectEnvelope(await create(ws.id, s.cookie, { name: 'x', scopes: ['read'] }), 401);
  });

  it('answers 403 for a non-admin member and for a non-member', async () => {
    for (const role of ['editor', 'viewer'] as const) {
      const s = await sessionFor(d, (await seedUser(d.app, ws, role)).id);
      const err = await expectEnvelope(await create(ws.id, s.cookie, { name: 'x', scopes: ['read'] }), 403, 'forbidden');
      expect(err.message).toBe(`This needs the admin role; you are ${role === 'editor' ? 'an editor' : 'a viewer'} in this workspace`);
    }
    const outsider = await sessionFor(d, (await seedUser(d.app, await seedWorkspace(d.app), 'admin')).id);
    await expectEnvelope(await create(ws.id, outsider.cookie, { name: 'x', scopes: ['read'] }), 403);
  });

  it('answers 400 for an unknown scope, a missing name and a body that is not an object', async () => {
    const e1 = await expectEnvelope(await create(ws.id, admin, { name: 'x', scopes: ['read', 'admin'] }), 400);
    expect(e1.message).toContain('admin');
    const e2 = await expectEnvelope(await create(ws.id, admin, { scopes: ['read'] }), 400);
    expect(e2.message).toContain('name');
    await expectEnvelope(await create(ws.id, admin, { name: '  ', scopes: ['read'] }), 400);
    await expectEnvelope(await create(ws.id, admin, [1]), 400);
    await expectEnvelope(await create(ws.id, admin, '{"name":'), 400);
  });

  it('refuses cross-site requests: a foreign Origin, Sec-Fetch-Site cross-site or same-site, a form content type', async () => {
    const body = { name: 'csrf', scopes: ['read'] };
    await expectEnvelope(await create(ws.id, admin, body, { Origin: 'https://evil.example' }), 403);
    await expectEnvelope(await create(ws.id, admin, body, { 'Sec-Fetch-Site': 'cross-site' }), 403);
    await expectEnvelope(await create(ws.id, admin, body, { 'Sec-Fetch-Site': 'same-site' }), 403);
    await expectEnvelope(await create(ws.id, admin, body, { Origin: 'null' }), 403);
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await fetch(`${d.url}/api/v1/workspaces/${ws.id}/api-keys`, { method: 'POST', headers: { 'Content-Type': type, Cookie: admin }, body: 'name=csrf&scopes=read' });
      expect(res.status, type).toBe(415);
    }
    // None of the refused requests created a key.
    const { listApiKeys } = await import('../../src/auth/api-keys.js');
    expect((await listApiKeys(d.app, ws.id)).map((k) => k.name)).not.toContain('csrf');
  });
});
