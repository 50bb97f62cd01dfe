import { readHostConfig } from './host-config';

describe('host configuration', () => {
  it('prepares statements unless DATABASE_PREPARED_STATEMENTS is off', () => {
    expect(readHostConfig('distributed', {}).preparedStatements).toBe(true);
    expect(readHostConfig('distributed', { DATABASE_PREPARED_STATEMENTS: 'on' }).preparedStatements).toBe(
      true,
    );
    expect(readHostConfig('distributed', { DATABASE_PREPARED_STATEMENTS: 'off' }).preparedStatements).toBe(
      false,
    );
  });

  it('refuses a value that is neither on nor off, naming the variable', () => {
    expect(() => readHostConfig('embedded', { DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(
      'DATABASE_PREPARED_STATEMENTS must be on or off, got no',
    );
  });

  it('sizes the database pool from DATABASE_POOL_SIZE (default 10, at least 1)', () => {
    expect(readHostConfig('distributed', {}).databasePoolSize).toBe(10);
    expect(readHostConfig('distributed', { DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    expect(() => readHostConfig('distributed', { DATABASE_POOL_SIZE: '0' })).toThrow(
      'DATABASE_POOL_SIZE must be at least 1, got 0',
    );
    expect(() => readHostConfig('distributed', { DATABASE_POOL_SIZE: 'many' })).toThrow(
      'DATABASE_POOL_SIZE must be a non-negative integer, got many',
    );
  });

  it('decides through in one process unless DECIDE_THROUGH is off (ADR 0038)', () => {
    expect(readHostConfig('embedded', {}).decideThrough).toBe(true);
    expect(readHostConfig('embedded', { DECIDE_THROUGH: 'off' }).decideThrough).toBe(false);
    expect(() => readHostConfig('embedded', { DECIDE_THROUGH: 'maybe' })).toThrow(
      'DECIDE_THROUGH must be on or off, got maybe',
    );
  });
});
