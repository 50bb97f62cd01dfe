// Integration tier: real Kafka (started by tools/kafka/kafka.sh when none answers) and real Postgres.
module.exports = require('./jest.preset.js')(['<rootDir>/{libs,apps}/*/src/**/*.int.spec.ts'], {
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  testTimeout: 120000,
  maxWorkers: 1,
});
