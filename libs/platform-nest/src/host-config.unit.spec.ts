import { readHostConfig } from './host-config';

describe('host configuration', () => {
  it('prepares statements unless DATABASE_PREPARED_STATEMENTS is off', () => {
    expect(readHostConfig('distributed', {}).preparedStatements).toBe(true);
    expect(readHostConfig('distributed', { DATABASE_PREPARED_STATEMENTS: 'on' }).preparedStatements).toBe(true);
    expect(readHostConfig('distributed', { DATABASE_PREPARED_STATEMENTS: 'off' }).preparedStatements).toBe(false);
  });

  it('refuses a value that is neither on nor off, naming the variable', () => {
    expect(() => readHostConfig('embedded', { DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(
      'DATABASE_PREPARED_STATEMENTS must be on or off, got no',
    );
  });
});
