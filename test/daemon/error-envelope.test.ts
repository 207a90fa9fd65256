import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { toAppError } from '../../src/errors.js';
import { startDaemon } from '../helpers/daemon.js';

describe('HTTP error envelope', () => {
  it('keeps a client error from middleware (not marked expose) a 4xx with our own wording', () => {
    const e = toAppError(Object.assign(new SyntaxError('Unexpected token } in JSON at position 3'), { status: 400 }));
    expect(e).toMatchObject({ code: 'invalid_body', status: 400, message: 'The request body could not be parsed' });
    expect(toAppError(Object.assign(new Error('request entity too large'), { status: 413, expose: true }))).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('turns anything else into a 500 internal_error without details', () => {
    const e = toAppError(new TypeError('x is undefined'));
    expect(e).toMatchObject({ code: 'internal_error', status: 500, message: 'Internal error' });
    expect(e.expose).toBe(false);
    const known = new AppError('conflict', 409, 'Taken');
    expect(toAppError(known)).toBe(known);
  });

  it('answers malformed JSON on an API route with 400, never a 500', async () => {
    const d = await startDaemon({ jobs: false });
    const res = await fetch(`${d.url}/api/v1/workspaces/ws_x/api-keys`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: '__session=nope' },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'invalid_body', message: 'The body is not valid JSON' } });
  });
});
