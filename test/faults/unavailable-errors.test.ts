import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/errors.js';

// The one mapping of "the database is down or too slow" (driver errors of pg, knex and SQLite)
// to AppError `unavailable`, 503, shown to clients, Retry-After 5, naming the dependency; the
// driver's own words (which may name internal hosts) only in the operator's hint.
describe('driver errors that mean the database is unavailable', () => {
  const cases: Array<[string, unknown]> = [
    ['pg query_timeout', new Error('Query read timeout')],
    ['pg connect timeout', new Error('Connection terminated due to connection timeout')],
    ['pg connection lost', new Error('Connection terminated unexpectedly')],
    ['knex pool wait', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })],
    ['server shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['statement_timeout', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
    ['connection exception', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['refused', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })],
    ['SQLite busy wait ran out', Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' })],
  ];
  it.each(cases)('%s: 503 unavailable, exposed, dependency database, driver words in the hint only', (_, err) => {
    const e = toAppError(err);
    expect(e).toMatchObject({ code: 'unavailable', status: 503, expose: true, details: { dependency: 'database', retryAfterSeconds: 5 } });
    expect(e.message).toBe('The database did not answer in time or cannot be reached; try again in a moment');
    expect(e.hint).toContain((err as Error).message);
  });

  it('anything else stays an internal error, hidden from clients', () => {
    const e = toAppError(new Error('Cannot read properties of undefined'));
    expect(e).toMatchObject({ code: 'internal_error', status: 500, expose: false });
  });
});
