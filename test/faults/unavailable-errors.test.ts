import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/errors.js';

// The one mapping of "a dependency cannot serve now" (driver errors of pg, knex, SQLite, ioredis
// and Node's sockets, by their class) to AppError `unavailable`, 503, shown to clients,
// Retry-After 5, naming the dependency and the failure class; the driver's own words (which may
// name internal hosts) only in the operator's hint. The shapes are those the drivers throw
// (read from pg, knex and node-sqlite3 against real servers and files).
const pgError = (code: string, message: string, severity = 'FATAL') => Object.assign(new Error(message), { name: 'error', code, severity });
const sqlite = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code, errno: 1 });
const socket = (code: string, message: string) => Object.assign(new Error(message), { code, syscall: 'connect' });

describe('dependency failures, by class', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['pg query_timeout', new Error('Query read timeout'), 'database', 'silent'],
    ['pg connect timeout', new Error('Connection terminated due to connection timeout'), 'database', 'silent'],
    ['knex pool wait', Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }), 'database', 'silent'],
    ['statement_timeout', pgError('57014', 'canceling statement due to statement timeout', 'ERROR'), 'database', 'silent'],
    ['connection lost', new Error('Connection terminated unexpectedly'), 'database', 'reset'],
    ['connection exception (class 08)', pgError('08006', 'connection failure'), 'database', 'reset'],
    ['socket reset', socket('ECONNRESET', 'read ECONNRESET'), 'database', 'reset'],
    ['socket broken pipe', socket('EPIPE', 'write EPIPE'), 'database', 'reset'],
    ['refused', socket('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:5432'), 'database', 'refused'],
    ['ALLOW_CONNECTIONS false (55000, FATAL)', pgError('55000', 'database "svc" is not currently accepting connections'), 'database', 'refused'],
    ['host unknown', socket('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal'), 'database', 'unreachable'],
    ['host unreachable', socket('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.5:5432'), 'database', 'unreachable'],
    ['administrator terminated', pgError('57P01', 'terminating connection due to administrator command'), 'database', 'terminated'],
    ['crash shutdown', pgError('57P02', 'terminating connection because of crash of another server process'), 'database', 'terminated'],
    ['starting up', pgError('57P03', 'the database system is starting up'), 'database', 'starting_or_stopping'],
    ['too many connections for a role', pgError('53300', 'too many connections for role "svc"'), 'database', 'too_many_connections'],
    ['disk full (class 53)', pgError('53100', 'could not extend file: No space left on device', 'ERROR'), 'database', 'disk_full'],
    ['password wrong (class 28)', pgError('28P01', 'password authentication failed for user "svc"'), 'database', 'authentication_failed'],
    ['role missing (class 28)', pgError('28000', 'role "svc" does not exist'), 'database', 'authentication_failed'],
    ['database missing', pgError('3D000', 'database "svc" does not exist'), 'database', 'database_missing'],
    ['read-only transaction', pgError('25006', 'cannot execute INSERT in a read-only transaction', 'ERROR'), 'database', 'read_only'],
    ['SQLite busy past the busy timeout', sqlite('SQLITE_BUSY', 'database is locked'), 'database', 'busy'],
    ['SQLite locked', sqlite('SQLITE_LOCKED', 'database table is locked'), 'database', 'busy'],
    ['SQLite read-only', sqlite('SQLITE_READONLY', 'attempt to write a readonly database'), 'database', 'read_only'],
    ['SQLite disk full', sqlite('SQLITE_FULL', 'database or disk is full'), 'database', 'disk_full'],
    ['SQLite I/O error', sqlite('SQLITE_IOERR', 'disk I/O error'), 'database', 'io_error'],
    ['SQLite cannot open', sqlite('SQLITE_CANTOPEN', 'unable to open database file'), 'database', 'database_missing'],
    ['Redis out of retries', Object.assign(new Error('Reached the max retries per request limit (which is 0).'), { name: 'MaxRetriesPerRequestError' }), 'redis', 'reset'],
    ['Redis command timeout', new Error('Command timed out'), 'redis', 'silent'],
    ['Redis closed', new Error('Connection is closed.'), 'redis', 'reset'],
  ];
  it.each(cases)('%s: 503 unavailable, exposed, names the dependency and the class, driver words in the hint only', (_, err, dependency, failure) => {
    const e = toAppError(err);
    expect(e).toMatchObject({ code: 'unavailable', status: 503, expose: true, details: { dependency, failure, retryAfterSeconds: 5 } });
    expect(e.message).toMatch(new RegExp(`^(The database|Redis) .+; try again in a moment$`));
    expect(e.message).not.toContain((err as Error).message);
    expect(e.hint).toContain((err as Error).message);
  });

  it('a damaged SQLite file is its own answer: 503 database_corrupt, no Retry-After, pointing to a backup', () => {
    for (const err of [sqlite('SQLITE_CORRUPT', 'database disk image is malformed'), sqlite('SQLITE_NOTADB', 'file is not a database')]) {
      const e = toAppError(err);
      expect(e).toMatchObject({ code: 'database_corrupt', status: 503, expose: true, details: { dependency: 'database', failure: 'corrupt' } });
      expect(e.details).not.toHaveProperty('retryAfterSeconds');
      expect(e.hint).toMatch(/svc restore/);
    }
  });

  it('errors that are not a dependency failure stay what they were', () => {
    expect(toAppError(new Error('Cannot read properties of undefined'))).toMatchObject({ code: 'internal_error', status: 500, expose: false });
    // A statement's own error (ERROR severity, not a connection class) is not an outage.
    expect(toAppError(pgError('42P01', 'relation "x" does not exist', 'ERROR'))).toMatchObject({ code: 'internal_error' });
    expect(toAppError(pgError('55P03', 'could not obtain lock on row', 'ERROR'))).toMatchObject({ code: 'internal_error' });
    expect(toAppError(sqlite('SQLITE_ERROR', 'no such table: x'))).toMatchObject({ code: 'internal_error' });
    expect(toAppError(pgError('22001', 'value too long for type character varying(10)', 'ERROR'))).toMatchObject({ code: 'invalid_input', status: 400 });
  });
});
