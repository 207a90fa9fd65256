import { PassThrough } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { PG_URL } from '../helpers/env.js';
import { loggedDaemon } from '../helpers/logged-daemon.js';
import { seedUser } from '../helpers/seed.js';

/** A real logger writing JSON lines into a stream, and what it wrote. */
function capturedLogger() {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (d) => (written += d));
  return { log: createLogger('info', stream), written: () => written };
}

describe('the log never carries credentials or row values', () => {
  it('redacts credential fields at the top of a line as well as one level down', () => {
    const { log, written } = capturedLogger();
    const secrets = {
      password: 'pw-hunter2',
      key: 'svc_blog_topLevelKey',
      token: 'tok-top-level',
      secret: 'whsec_topLevelSecret',
      apiKey: 'svc_api_topLevelKey',
      accessToken: 'access-top-level',
      refreshToken: 'refresh-top-level',
      clientSecret: 'client-secret-top-level',
    };
    log.info({ ...secrets, keyId: 'key_visible', body: { password: 'pw-nested', token: 'tok-nested', key: 'key-nested' } }, 'a line');
    const line = JSON.parse(written());
    for (const [field, value] of Object.entries(secrets)) {
      expect(line[field], field).toBe('[redacted]');
      expect(written()).not.toContain(value);
    }
    expect(line.body).toEqual({ password: '[redacted]', token: '[redacted]', key: '[redacted]' });
    expect(line.keyId).toBe('key_visible');
  });

  it("logs a PostgreSQL error without its detail (the conflicting row's values), also inside an aggregate", () => {
    const { log, written } = capturedLogger();
    // The driver's own error class, as pg fills it for a unique violation.
    const err = Object.assign(new pg.DatabaseError('duplicate key value violates unique constraint "users_email_unique"', 120, 'error'), {
      code: '23505',
      detail: 'Key (email)=(ann@example.com) already exists.',
      table: 'users',
      constraint: 'users_email_unique',
    });
    const held = { reason: 'kept', detail: 'the caller’s own object is not changed' };
    log.error({ err, context: held }, 'insert failed');
    log.error({ err: new AggregateError([err], 'several failed') }, 'batch failed');
    expect(written()).not.toContain('ann@example.com');
    const [first, second] = written().trim().split('\n').map((l) => JSON.parse(l));
    expect(first.err).toMatchObject({ code: '23505', detail: '[redacted]', table: 'users', constraint: 'users_email_unique' });
    expect(first.err.message).toContain('users_email_unique');
    expect(first.context).toEqual(held);
    expect(second.err.aggregateErrors[0]).toMatchObject({ code: '23505', detail: '[redacted]' });
    expect(err.detail).toBe('Key (email)=(ann@example.com) already exists.');
  });

  it.runIf(PG_URL)('a unique violation from the PostgreSQL server reaches the daemon log without the email it conflicts on', async () => {
    const { app, lines } = await loggedDaemon();
    const user = await seedUser(app, null);
    const row = await app.db('users').where({ id: user.id }).first();
    const err = (await app.db('users').insert({ ...row, id: `${row.id}-copy` }).then(() => null, (e: unknown) => e)) as (Error & { detail?: string }) | null;
    expect(err?.detail).toContain(user.email);
    app.log.error({ err }, 'insert failed');
    const line = lines.find((l) => l.msg === 'insert failed')!;
    expect(JSON.stringify(line)).not.toContain(user.email);
    expect(line.err).toMatchObject({ code: '23505', detail: '[redacted]' });
  });
});
