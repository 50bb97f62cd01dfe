import { isDatabaseUnavailable, isTransientDatabaseFailure } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises a server shutting down, starting up or gone', () => {
    expect(isDatabaseUnavailable(withCode('the database system is shutting down', '57P03'))).toBe(true);
    expect(
      isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01')),
    ).toBe(true);
    expect(isDatabaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it("looks through TypeORM's driverError and error causes", () => {
    const wrapped = Object.assign(new Error('query failed'), {
      driverError: withCode('shutting down', '57P01'),
    });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: withCode('x', '08006') }))).toBe(true);
  });

  it('leaves other failures alone: constraint violations, syntax errors, plain errors', () => {
    expect(isDatabaseUnavailable(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('syntax error', '42601'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('not an error')).toBe(false);
  });
});

describe('isTransientDatabaseFailure', () => {
  it('is the database unavailable or refusing: too many clients, out of resources, a terminated backend, a pool timeout', () => {
    expect(isTransientDatabaseFailure(withCode('sorry, too many clients already', '53300'))).toBe(true);
    expect(isTransientDatabaseFailure(withCode('too many connections for role "x"', '53300'))).toBe(true);
    expect(
      isTransientDatabaseFailure(withCode('could not extend file: No space left on device', '53100')),
    ).toBe(true);
    expect(
      isTransientDatabaseFailure(withCode('terminating connection due to administrator command', '57P01')),
    ).toBe(true);
    expect(isTransientDatabaseFailure(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isTransientDatabaseFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('sorry, too many clients already', '53300'))).toBe(true);
  });

  it('is a transaction rolled back for contention: serialization failure, deadlock (not "unavailable")', () => {
    const deadlock = Object.assign(new Error('query failed'), {
      driverError: withCode('deadlock detected', '40P01'),
    });
    expect(isTransientDatabaseFailure(deadlock)).toBe(true);
    expect(isTransientDatabaseFailure(withCode('could not serialize access', '40001'))).toBe(true);
    expect(isDatabaseUnavailable(deadlock)).toBe(false);
  });

  it("is not the work's own failure: a constraint, a type, a plain error", () => {
    expect(isTransientDatabaseFailure(withCode('violates check constraint', '23514'))).toBe(false);
    expect(isTransientDatabaseFailure(withCode('invalid input syntax for type json', '22P02'))).toBe(false);
    expect(isTransientDatabaseFailure(new Error('run r: expected sequence 4, got 5'))).toBe(false);
    expect(isTransientDatabaseFailure(undefined)).toBe(false);
  });
});
